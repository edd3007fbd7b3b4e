/**
 * API keys (CONTRACT.md section 7): create, list, revoke, rotate. Each verb is one call of the key
 * lifecycle (shared/domain/api-keys.ts) that the admin API's AccountKeys calls too.
 */
import { createKey, listKeys, revokeKey, rotateKey, type IssuedKey, type KeyAdminDependencies, type KeySummary } from '../../shared/domain/api-keys.ts';
import { challengeSecretScope } from '../../shared/captcha/secrets.ts';
import { sealedSecretCipherFromEnvironment } from '../../shared/kms-sealed-secrets.ts';
import { CHALLENGE_PROVIDERS } from '../../shared/domain/challenge.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { leadKeyEndpoints } from '../../shared/domain/lead.ts';
import { keyScopedSources, sourceKeyScopes } from '../../shared/sources/registry.ts';
import { HELP, list, optional, printJsonOr, required, seconds, table, UsageError, type AdminIo, type CommandModule } from './command.ts';

/** The key lifecycle's dependencies: the repository's key and account stores, and the cipher of challenge secrets. */
export const keyAdmin = (repository: DynamoDbRepository, env: NodeJS.ProcessEnv = process.env): KeyAdminDependencies => ({
  keys: repository.keys,
  accounts: repository.accounts,
  // Built when a challenge is sealed: creating any other key needs no KMS key.
  // The KMS SDK client with the operator's credentials (as for page tokens), or the local cipher.
  challengeSecrets: { seal: (accountId, secret) => sealedSecretCipherFromEnvironment(env, challengeSecretScope).seal(accountId, secret) },
  keyScopes: sourceKeyScopes,
});

/** Where a challenge's secret comes from: this variable, else standard input; never an argument. */
export const CAPTCHA_SECRET_VARIABLE = 'CAPTCHA_SECRET';

/** A new key: alone on standard output (for `$(...)`), or with its details as one JSON object with --json. */
export const printIssued = (issued: IssuedKey, json: boolean, io: AdminIo, note: string) => {
  io.stdout(json ? `${JSON.stringify(issued, null, 2)}\n` : `${issued.key}\n`);
  io.stderr(`${note} The key is shown only this once: store it now.\n`);
};

/** The keys as a table for a terminal. */
const keyTable = (keys: readonly KeySummary[]): string => {
  if (keys.length === 0) return 'No API keys with a key id.\n';
  const columns: [string, (key: KeySummary) => unknown][] = [
    ['key_id', (k) => k.key_id],
    ['label', (k) => k.label],
    ['endpoints', (k) => k.endpoints?.join(',') ?? 'all'],
    ['origins', (k) => k.origins?.join(',') ?? ''],
    ['active', (k) => (k.active ? 'yes' : 'no')],
    ['created_at', (k) => k.created_at],
    ['expires_at', (k) => k.expires_at ?? 'never'],
    ['captcha', (k) => (k.captcha ? `${k.captcha}${k.captcha_action !== undefined ? ` (action ${k.captcha_action})` : ''}` : '')],
  ];
  // Shown when an account has a key limited to dry runs (the canary's), so that other tables read as before.
  if (keys.some((k) => k.dry_runs_only)) columns.push(['dry_runs_only', (k) => (k.dry_runs_only ? 'yes' : 'no')]);
  return table(columns, keys) + `${keys.length} key(s)\n`;
};

/** The challenge secret, from CAPTCHA_SECRET or standard input (never an argument, which `ps` and shell history show). */
const challengeSecret = async (io: AdminIo): Promise<string> => (io.env[CAPTCHA_SECRET_VARIABLE] ?? (io.stdin ? await io.stdin() : '')).trim();

const keys: CommandModule = {
  'create-key': {
    usage: `create-key --account ID [--label TEXT] [--endpoints LIST] [--origins LIST] [--expires ISO-8601] [--captcha ${CHALLENGE_PROVIDERS.join('|')} [--captcha-action ACTION]] [--dry-runs-only] [--json]`,
    summary:
      'Create an active API key and print it, once (only its SHA-256 hash is stored). LIST is comma-separated: endpoints of ' +
      `${leadKeyEndpoints.join(', ')}, or ${keyScopedSources.map(({ keyScope, title }) => `${keyScope.name} alone (${title} only)`).join(', or ')}; ` +
      'origins scheme://host[:port] make a browser key (website only). --captcha makes a browser ' +
      `key require that challenge; the provider's secret is read from ${CAPTCHA_SECRET_VARIABLE} or standard input, and stored encrypted. --captcha-action ` +
      '(reCAPTCHA v3 only) names the action its tokens must have been made for. --dry-runs-only limits the key to dry runs (x-dry-run: true; ' +
      'anything else answers 403), as the canary\'s. --json prints the key with its details.',
    options: {
      ...HELP,
      account: { type: 'string' },
      label: { type: 'string' },
      endpoints: { type: 'string' },
      origins: { type: 'string' },
      expires: { type: 'string' },
      captcha: { type: 'string' },
      'captcha-action': { type: 'string' },
      'dry-runs-only': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'create-key');
      const origins = list(values.origins);
      const provider = values.captcha as string | undefined;
      const action = values['captcha-action'] as string | undefined;
      if (action !== undefined && provider === undefined) throw new UsageError('--captcha-action names the action of a reCAPTCHA v3 challenge: give --captcha recaptcha with it', 'create-key');
      const issued = await createKey(keyAdmin(repository(), io.env), {
        accountId,
        label: optional(values.label),
        endpoints: list(values.endpoints),
        origins,
        expiresAt: optional(values.expires),
        ...(values['dry-runs-only'] === true && { dryRunsOnly: true }),
        // Standard input is read only for a browser key: a refusal needs no secret typed first.
        ...(provider !== undefined && { captcha: { provider, secret: origins ? await challengeSecret(io) : '', ...(action !== undefined && { action }) } }),
      });
      printIssued(issued, values.json === true, io, `API key ${issued.key_id} created for account ${accountId}.`);
    },
  },
  'list-keys': {
    usage: 'list-keys --account ID [--json]',
    summary: "List an account's API keys (key id, label, endpoints, origins, active, created, expires, captcha provider, dry runs only): never a key, its hash or a challenge secret.",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'list-keys');
      const found = await listKeys(keyAdmin(repository()), accountId);
      printJsonOr(io, values.json, found, () => keyTable(found));
    },
  },
  'revoke-key': {
    usage: 'revoke-key --id KEY_ID | revoke-key - (the key on standard input) | revoke-key KEY',
    summary:
      'Make an API key inactive, given its key id, or the key itself: it then answers 401 Invalid API credentials. ' +
      'Prefer --id, or - with the key piped to standard input: a key given as an argument is in the shell history, and npm (without -s) repeats it in its header line.',
    options: { ...HELP, id: { type: 'string' } },
    positionals: ['KEY'],
    optionalPositionals: true,
    run: async ({ values, positionals: [given] }, repository, io) => {
      // `-`: the key from standard input, so it is in no argument list, history or npm header line.
      const key = given === '-' ? (io.stdin ? (await io.stdin()).trim() : '') || undefined : given;
      if (given === '-' && key === undefined) throw new UsageError('no key on standard input', 'revoke-key');
      if (key === undefined && values.id === undefined) throw new UsageError('give the key to revoke, or --id KEY_ID', 'revoke-key');
      if (key !== undefined && values.id !== undefined) throw new UsageError('give the key or --id KEY_ID, not both', 'revoke-key');
      const keyId = values.id === undefined ? undefined : required(values.id, '--id', 'revoke-key');
      const revoked = await revokeKey(keyAdmin(repository()), keyId === undefined ? { key: key! } : { keyId });
      io.stdout(revoked.key_id ? `API key ${revoked.key_id} revoked.\n` : 'API key revoked.\n');
    },
  },
  'rotate-key': {
    usage: 'rotate-key --id KEY_ID [--grace SECONDS] [--expires ISO-8601] [--json]',
    summary:
      "Replace a key: a new key with the old one's account, label, endpoints, origins and challenge, printed like create-key; the old key " +
      'keeps working for the grace period (default 86400 seconds; 0 ends it at once).',
    options: { ...HELP, id: { type: 'string' }, grace: { type: 'string' }, expires: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const keyId = required(values.id, '--id', 'rotate-key');
      const rotated = await rotateKey(keyAdmin(repository()), {
        keyId,
        ...(values.grace !== undefined && { graceSeconds: seconds(values.grace as string, '--grace', 'rotate-key') }),
        expiresAt: optional(values.expires),
      });
      printIssued(
        rotated,
        values.json === true,
        io,
        `API key ${rotated.key_id} replaces ${rotated.replaces.key_id}, which keeps working until ${rotated.replaces.expires_at}.`,
      );
    },
  },
};

export default keys;
