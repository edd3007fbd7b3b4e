/**
 * The audit of looks at a person's data (CONTRACT.md section 18) from the admin CLI: who runs a verb
 * (the caller identity in AWS, `local cli` against a local DynamoDB), the audit's dependencies on the
 * repository, and `audit`, one page of an account's audit, newest first (itself audited).
 */
import { randomUUID } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { auditOperations, auditPage, auditRetentionDaysFromEnvironment, type AuditCaller, type AuditDependencies, type AuditEntry } from '../../shared/domain/audit.ts';
import { AccountNotFoundError, InvalidConfigurationError } from '../../shared/domain/errors.ts';
import { NodeSha256 } from '../../shared/aws/node-sha256.ts';
import { DynamoDbAuditLog } from '../../shared/dynamodb/audit.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { runtimeSettings } from '../../shared/routes.ts';
import { awsRegion } from './database.ts';
import { CommandError, HELP, optional, printJsonOr, required, table, UsageError, type AdminIo, type CommandModule } from './command.ts';

/** The principal of a CLI run against a local DynamoDB (npm start's, or a shared DynamoDB Local). */
export const LOCAL_CLI_PRINCIPAL = 'local cli';

/** How long the caller identity's look-up may take. */
const CALLER_IDENTITY_TIMEOUT_MS = 10_000;

/**
 * The ARN of the credentials the CLI runs with (STS GetCallerIdentity, which every principal may call),
 * as one signed request: the STS client is not a dependency of the project for one call.
 * `AWS_ENDPOINT_URL_STS` names another endpoint, as the SDKs read it.
 */
export const callerIdentityArn = async (env: NodeJS.ProcessEnv, region: string): Promise<string> => {
  const url = new URL(env.AWS_ENDPOINT_URL_STS || `https://sts.${region}.amazonaws.com`);
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const signer = new SignatureV4({ credentials: defaultProvider(), region, service: 'sts', sha256: NodeSha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port && { port: Number(url.port) }),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const response = await fetch(new URL('/', url), { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(CALLER_IDENTITY_TIMEOUT_MS) });
  const text = await response.text();
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(text)?.[1];
  if (!response.ok || !arn) throw new CommandError(`could not read the caller identity (STS GetCallerIdentity answered HTTP ${response.status}): an audited command needs to know who runs it`);
  return arn;
};

/** Who runs this command, and the run's own request id, for its audit entry. */
export const cliCaller = async (io: AdminIo): Promise<AuditCaller> => {
  const local = io.env[runtimeSettings.dynamodbEndpoint];
  const principal = local ? LOCAL_CLI_PRINCIPAL : await callerIdentityArn(io.env, await awsRegion(io.env));
  return { principal, requestId: `cli-${randomUUID()}` };
};

/** The audit on the repository's Leads table, its entries kept the stack's `auditRetentionDays` (AUDIT_RETENTION_DAYS, at least 365). */
export const auditOf = (repository: DynamoDbRepository, env: NodeJS.ProcessEnv): AuditDependencies => ({
  audit: new DynamoDbAuditLog(repository.db, repository.tables.leads, auditRetentionDaysFromEnvironment(env)),
  keyring: repository.keyring,
  accounts: repository.accounts,
});

/** The entries as a table for a terminal; every field stays in --json. */
const auditTable = (entries: readonly AuditEntry[]): string => {
  if (entries.length === 0) return 'No audit entries.\n';
  const columns: [string, (entry: AuditEntry) => unknown][] = [
    ['at', (e) => e.at],
    ['operation', (e) => e.operation],
    ['principal', (e) => e.principal],
    ['request_id', (e) => e.request_id],
    ['subject', (e) => (e.subject === null ? '' : `${e.subject.slice(0, 16)}…`)],
    ['count', (e) => e.count],
  ];
  return table(columns, entries) + `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}\n`;
};

const audit: CommandModule = {
  audit: {
    usage: 'audit --account ID [--since ISO-8601] [--operation OP] [--limit N] [--cursor C] [--json]',
    summary:
      `One page of an account's audit, newest first: every look at, or erasure of, a person's data (operations: ${auditOperations.join(', ')}), through the CLI or the admin API. ` +
      'Listing it is itself audited. When there are more, the cursor of the next page goes to standard error; pass it as --cursor.',
    options: { ...HELP, account: { type: 'string' }, since: { type: 'string' }, operation: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'audit');
      const since = optional(values.since);
      const operation = optional(values.operation);
      const repo = repository();
      let page;
      try {
        page = await auditPage(auditOf(repo, io.env), await cliCaller(io), accountId, {
          ...(values.limit !== undefined && { limit: values.limit as string }),
          ...(since !== undefined && { since }),
          ...(operation !== undefined && { operation }),
          ...(values.cursor !== undefined && { cursor: values.cursor as string }),
        });
      } catch (error) {
        if (error instanceof InvalidConfigurationError) throw new UsageError(error.message.replace(/^since/, '--since').replace(/^operation/, '--operation'), 'audit');
        if (error instanceof AccountNotFoundError) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
        throw error;
      }
      printJsonOr(io, values.json, page.items, () => auditTable(page.items));
      if (page.next) io.stderr(`More: pass --cursor ${page.next} (with the same --since and --operation)\n`);
    },
  },
};

export default audit;
