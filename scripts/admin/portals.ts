/**
 * Portal logins (CONTRACT.md section 17): connect (the credential read from PORTAL_CREDENTIAL or
 * standard input, never from a flag, and stored sealed), list (never the credential), remove, and pull
 * one now. The lifecycle is shared/pulled/logins.ts; the pull shared/pulled/pull.ts.
 */
import { DynamoDbPortalLoginStore } from '../../shared/dynamodb/portal-logins.ts';
import { connectPortalLogin, listPortalLogins, removePortalLogin, type MapTarget, type PortalLoginJson } from '../../shared/pulled/logins.ts';
import { pullPortalNow } from '../../shared/pulled/pull.ts';
import { pullRuntime } from '../../shared/pulled/runtime.ts';
import { PORTAL_PULL_FUNCTION_NAME, pullThroughFunction } from '../../shared/pulled/remote-pull.ts';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { portalCredentialCipher, portalEventsFromEnvironment, pullSettingsFromEnvironment } from '../../shared/pulled/settings.ts';
import { portalBaseUrls, portals } from '../../shared/portals/registry.ts';
import { HELP, optional, printJsonOr, required, table, UsageError, type CommandModule } from './command.ts';

export const PORTAL_CREDENTIAL_VARIABLE = 'PORTAL_CREDENTIAL';
const PORTAL_NAMES = portals.map(({ source }) => source.name).join('|');

const mapOf = (values: readonly string[] | undefined, command: string): Record<string, MapTarget> | undefined => {
  if (values === undefined) return undefined;
  const map: Record<string, MapTarget> = {};
  for (const entry of values) {
    const match = /^([^=]+)=([^/]+)\/(.+)$/.exec(entry);
    if (!match) throw new UsageError(`--map must be PORTAL_PROJECT_ID=PROJECT/CAMPAIGN, not ${JSON.stringify(entry)}`, command);
    map[match[1]!.trim()] = { projectId: match[2]!.trim(), campaignId: match[3]!.trim() };
  }
  return map;
};

const portalTable = (logins: readonly PortalLoginJson[]) =>
  logins.length === 0
    ? 'No portal logins connected.\n'
    : table<PortalLoginJson>(
        [
          ['PORTAL', (l) => l.portal],
          ['LOGIN', (l) => l.login],
          ['PROJECT', (l) => l.project_id],
          ['CAMPAIGN', (l) => l.campaign_id],
          ['MAP', (l) => Object.entries(l.map).map(([id, t]) => `${id}=${t.project_id}/${t.campaign_id}`).join(' ')],
          ['PULLED THROUGH', (l) => l.pulled_through ?? '-'],
          ['LAST PULL', (l) => l.last_pull_at ?? '-'],
          ['STATE', (l) => (l.failing ? `failing since ${l.failing.since}: ${l.failing.reason}: ${l.failing.message}` : l.state)],
          ['STORED', (l) => l.enquiries_stored],
        ],
        logins,
      ) + `${logins.length} login(s)\n`;

const adminOf = (repository: Parameters<CommandModule[string]['run']>[1], env: NodeJS.ProcessEnv) => {
  const repo = repository();
  return { logins: new DynamoDbPortalLoginStore(repo.db, repo.tables.config), accounts: repo.accounts, cipher: portalCredentialCipher(env), portals: portals.map(({ source }) => source) };
};

const portalsModule: CommandModule = {
  'add-portal': {
    usage: `add-portal --account ID --portal ${PORTAL_NAMES} --login L --project P --campaign C [--map PORTAL_PROJECT_ID=P/C ...] [--feed builder|broker] [--json]`,
    summary: `Connect a portal login so that its enquiries are pulled as leads, or replace what is given of one (its watermark kept); the credential is read from ${PORTAL_CREDENTIAL_VARIABLE} or standard input and stored encrypted.`,
    options: {
      ...HELP,
      account: { type: 'string' },
      portal: { type: 'string' },
      login: { type: 'string' },
      project: { type: 'string' },
      campaign: { type: 'string' },
      map: { type: 'string', multiple: true },
      feed: { type: 'string' },
      json: { type: 'boolean' },
    },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'add-portal';
      const accountId = required(values.account, '--account', command);
      const portal = required(values.portal, '--portal', command);
      const login = required(values.login, '--login', command);
      const projectId = required(values.project, '--project', command);
      const campaignId = required(values.campaign, '--campaign', command);
      const map = mapOf(values.map as unknown as string[] | undefined, command);
      const feed = optional(values.feed);
      const admin = adminOf(repository, io.env);
      const given = io.env[PORTAL_CREDENTIAL_VARIABLE] ?? (io.stdin ? await io.stdin() : '');
      const credential = given.trim() === '' ? undefined : given.trim();
      const { created, login: connected } = await connectPortalLogin(admin, {
        accountId,
        portal,
        login,
        projectId,
        campaignId,
        ...(credential !== undefined && { credential }),
        ...(map && { map }),
        ...(feed !== undefined && { feed }),
      });
      printJsonOr(io, values.json, connected, () =>
        created
          ? `Portal login ${login} of ${portal} is connected to account ${accountId} (project ${projectId}, campaign ${campaignId}); its credential is stored encrypted. Its enquiries since ${new Date(Date.parse(connected.connected_at) - 24 * 3600_000).toISOString()} are pulled from the next pull on.\n`
          : `Portal login ${login} of ${portal} now pulls into project ${projectId}, campaign ${campaignId}${credential !== undefined ? ', with its new credential' : ''}; its watermark is kept.\n`,
      );
    },
  },
  portals: {
    usage: 'portals --account ID [--json]',
    summary: "List an account's portal logins: where their enquiries go, how far they are pulled, whether they are failing (never a credential).",
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'portals');
      const logins = await listPortalLogins(adminOf(repository, io.env), accountId);
      printJsonOr(io, values.json, logins, () => portalTable(logins));
    },
  },
  'remove-portal': {
    usage: `remove-portal --account ID --portal ${PORTAL_NAMES} --login L`,
    summary: 'Disconnect a portal login: its pulls stop at once, its leads stay, and a seed never connects it again.',
    options: { ...HELP, account: { type: 'string' }, portal: { type: 'string' }, login: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'remove-portal';
      const accountId = required(values.account, '--account', command);
      const portal = required(values.portal, '--portal', command);
      const login = required(values.login, '--login', command);
      await removePortalLogin(adminOf(repository, io.env), accountId, portal, login);
      io.stdout(`Portal login ${login} of ${portal} is disconnected from account ${accountId}; its leads are kept.\n`);
    },
  },
  'pull-portal': {
    usage: `pull-portal --account ID --portal ${PORTAL_NAMES} --login L [--json]`,
    summary: 'Pull a portal login now (as its schedule does): prints what was stored, recorded, already there, and how far it is pulled.',
    options: { ...HELP, account: { type: 'string' }, portal: { type: 'string' }, login: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const command = 'pull-portal';
      const accountId = required(values.account, '--account', command);
      const portal = required(values.portal, '--portal', command);
      const login = required(values.login, '--login', command);
      // Against a deployed stack (PORTAL_PULL_FUNCTION_NAME from its outputs): the pull function pulls, from the address the portals allow-list.
      const functionName = io.env[PORTAL_PULL_FUNCTION_NAME];
      if (functionName) {
        const region = io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION;
        if (!region) throw new UsageError(`${PORTAL_PULL_FUNCTION_NAME} needs AWS_REGION`, command);
        const summary = await pullThroughFunction({ functionName, region, credentials: defaultProvider() })(accountId, portal, login);
        printJsonOr(io, values.json, summary, () => `Pulled ${portal} login ${login}: ${summary.stored} stored, ${summary.recorded} recorded, ${summary.already} already there; pulled through ${summary.pulled_through ?? '(nothing yet)'}.\n`);
        return;
      }
      const repo = repository();
      const settings = pullSettingsFromEnvironment(io.env);
      const runtime = pullRuntime({
        db: repo.db,
        tables: repo.tables,
        cipher: portalCredentialCipher(io.env),
        events: portalEventsFromEnvironment(io.env, io.stderr),
        portals,
        baseUrls: portalBaseUrls(io.env),
        settings,
        log: () => undefined,
      });
      const summary = await pullPortalNow(runtime, accountId, portal, login);
      printJsonOr(io, values.json, summary, () => `Pulled ${portal} login ${login}: ${summary.stored} stored, ${summary.recorded} recorded, ${summary.already} already there; pulled through ${summary.pulled_through ?? '(nothing yet)'}.\n`);
    },
  },
};

export default portalsModule;
