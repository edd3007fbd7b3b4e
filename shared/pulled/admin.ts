/**
 * Portal logins' admin API (CONTRACT.md section 17): `PUT`, `GET`, `DELETE
 * /accounts/{accountId}/portals/{portal}/{login}` and its `POST .../pull`, on the lifecycle of
 * logins.ts and the pull of pull.ts, answered in the admin API's envelope: 404 `Portal login not
 * found`, 409 when another account has the login (or a pull of it is running). Its module's line is in
 * shared/admin-sources.ts; the routes are joined to the admin API's in shared/admin-routes.ts.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountIdProblem, campaignIdProblem, fieldProblems, projectIdProblem, reportUnknownFields } from '../domain/account-admin.ts';
import { ConnectionRefusal } from '../domain/connection-admin.ts';
import { AccountNotFoundError, InvalidKeyOptionError, KeyAccountNotFoundError, UnknownCampaignError, UnknownProjectError } from '../domain/errors.ts';
import type { AccountReader } from '../domain/ports/keys-and-accounts.ts';
import { DynamoDbPortalLoginStore } from '../dynamodb/portal-logins.ts';
import type { TableNames } from '../dynamodb/repository.ts';
import { created, noContent, ok, sourceAdmin } from '../http/admin-operation.ts';
import { portalBaseUrls, portals } from '../portals/registry.ts';
import { tableNamesFromEnvironment } from '../runtime.ts';
import {
  connectPortalLogin,
  listPortalLogins,
  PortalLoginNotFoundError,
  PortalLoginOfAnotherAccountError,
  PortalTargetNotFoundError,
  removePortalLogin,
  type MapTarget,
  type PortalLoginAdminDependencies,
} from './logins.ts';
import { PortalPullBusyError, pullPortalNow, type PullDependencies } from './pull.ts';
import { portalLoginConflict, portalLoginNotFound, portalPullRunning } from './refusals.ts';
import { portalAdminRoutes } from './routes.ts';
import { PORTAL_PULL_FUNCTION_NAME, pullThroughFunction, type PullNow } from './remote-pull.ts';
import { pullRuntime } from './runtime.ts';
import { portalCredentialCipher, portalEventsFromEnvironment, pullSettingsFromEnvironment } from './settings.ts';

/** What the module is built from: the tables, their client and the accounts (the repository's, or the admin function's own). */
export interface PortalAdminStores {
  readonly db: DynamoDBDocumentClient;
  readonly tables: TableNames;
  readonly accounts: AccountReader;
}

interface PortalAdminDependencies {
  readonly admin: PortalLoginAdminDependencies;
  /** A pull now: through the pull function in AWS (its fixed address), else in this process, built on the first one asked for. */
  readonly pullNow: PullNow;
}

type Body = Readonly<Record<string, unknown>>;

const mapOf = (value: unknown, report: (field: string, problem: string) => void): Record<string, MapTarget> | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return void report('map', 'must be an object of portal project ids'), undefined;
  const map: Record<string, MapTarget> = {};
  for (const [id, target] of Object.entries(value as Body)) {
    const t = (typeof target === 'object' && target !== null ? target : {}) as Body;
    const problem = projectIdProblem(t.projectId) ?? campaignIdProblem(t.campaignId);
    if (problem || id === '' || id.length > 200) report(`map.${id}`, problem ?? 'must name a portal project id of 1 to 200 characters');
    else map[id] = { projectId: t.projectId as string, campaignId: t.campaignId as string };
  }
  return map;
};

/** The lifecycle's refusals in the admin API's words. */
const answered = async <T>(operation: () => Promise<T>): Promise<T> => {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof KeyAccountNotFoundError) throw new AccountNotFoundError();
    if (error instanceof PortalLoginNotFoundError) throw new ConnectionRefusal(portalLoginNotFound);
    if (error instanceof PortalLoginOfAnotherAccountError) throw new ConnectionRefusal(portalLoginConflict);
    if (error instanceof PortalPullBusyError) throw new ConnectionRefusal(portalPullRunning);
    if (error instanceof PortalTargetNotFoundError) throw error.target === 'project' ? new UnknownProjectError() : new UnknownCampaignError();
    if (error instanceof InvalidKeyOptionError) {
      const problems = fieldProblems();
      problems.report(error.option, error.message.replace(/^--\w+ /, ''));
      problems.check();
    }
    throw error;
  }
};

export default sourceAdmin({
  routes: portalAdminRoutes,
  stores: (db, configTable) => ({ db, tables: { ...tableNamesFromEnvironment(process.env), config: configTable } }),
  dependencies: ({ db, tables, accounts }: PortalAdminStores): PortalAdminDependencies => {
    let pull: PullDependencies | undefined;
    const env = process.env;
    const functionName = env[PORTAL_PULL_FUNCTION_NAME];
    return {
      admin: { logins: new DynamoDbPortalLoginStore(db, tables.config), accounts, cipher: portalCredentialCipher(env), portals: portals.map(({ source }) => source) },
      pullNow: functionName
        ? pullThroughFunction({ functionName, region: env.AWS_REGION ?? '', credentials: fromEnv() })
        : (accountId, portal, login) => pullPortalNow(local(), accountId, portal, login),
    };
    function local(): PullDependencies {
      return (pull ??= pullRuntime({
          db,
          tables,
          cipher: portalCredentialCipher(env),
          events: portalEventsFromEnvironment(env),
          portals,
          baseUrls: portalBaseUrls(env),
          settings: pullSettingsFromEnvironment(env),
        }));
    }
  },
  operations: {
    connectPortalLogin: async ({ admin }, p, body) => {
      const problems = fieldProblems();
      reportUnknownFields(body, ['projectId', 'campaignId', 'credential', 'map', 'feed'], problems.report);
      const accountProblem = accountIdProblem(p.accountId);
      if (accountProblem) problems.report('accountId', accountProblem);
      const projectProblem = projectIdProblem(body.projectId);
      if (projectProblem) problems.report('projectId', projectProblem);
      const campaignProblem = campaignIdProblem(body.campaignId);
      if (campaignProblem) problems.report('campaignId', campaignProblem);
      if (body.credential !== undefined && (typeof body.credential !== 'string' || body.credential.trim() === '')) problems.report('credential', 'must be text');
      if (body.feed !== undefined && typeof body.feed !== 'string') problems.report('feed', 'must be text');
      const map = mapOf(body.map, problems.report);
      problems.check();
      const connected = await answered(() =>
        connectPortalLogin(admin, {
          accountId: p.accountId!,
          portal: p.portal!,
          login: p.login!,
          projectId: body.projectId as string,
          campaignId: body.campaignId as string,
          ...(typeof body.credential === 'string' && { credential: body.credential.trim() }),
          ...(map && { map }),
          ...(typeof body.feed === 'string' && { feed: body.feed }),
        }),
      );
      return connected.created ? created(connected.login) : ok(connected.login);
    },
    listPortalLogins: async ({ admin }, p) => ok(await answered(() => listPortalLogins(admin, p.accountId!))),
    removePortalLogin: async ({ admin }, p) => {
      if (!(await admin.accounts.loadAccount(p.accountId!))) throw new AccountNotFoundError();
      return noContent(await answered(() => removePortalLogin(admin, p.accountId!, p.portal!, p.login!)));
    },
    pullPortalLogin: async ({ admin, pullNow }, p) => {
      if (!(await admin.accounts.loadAccount(p.accountId!))) throw new AccountNotFoundError();
      return ok(await answered(() => pullNow(p.accountId!, p.portal!, p.login!)));
    },
  },
});
