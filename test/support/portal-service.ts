/**
 * Portal pulls on a test service (test/support/service.ts): its own tables on the run's DynamoDB Local,
 * logins connected as `admin add-portal` connects them (their credential sealed with the local key),
 * the pull as the schedule runs it against portals faked on their real wire, and the events it sends.
 */
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbPortalLoginStore } from '../../shared/dynamodb/portal-logins.ts';
import { connectPortalLogin, type ConnectPortalInput, type PortalLoginAdminDependencies } from '../../shared/pulled/logins.ts';
import { portalCredentialScope } from '../../shared/pulled/logins.ts';
import { pullLogin, type PortalEvent } from '../../shared/pulled/pull.ts';
import { portalHttp, type PortalHttpOptions } from '../../shared/pulled/http.ts';
import { pullRuntime } from '../../shared/pulled/runtime.ts';
import { portals } from '../../shared/portals/registry.ts';
import { localTokenCipher } from '../../shared/sealed-secrets.ts';
import { asFunction } from './aws-calls.ts';
import { testService, type ServiceOptions } from './service.ts';

export interface PortalServiceOptions extends ServiceOptions {
  /** Each portal's base URL (its fake's), by name. */
  readonly baseUrls: Record<string, string>;
  readonly overlapMinutes?: number;
  readonly failingMinutes?: number;
  readonly http?: PortalHttpOptions;
  readonly now?: () => Date;
}

export const portalTestService = async (options: PortalServiceOptions) => {
  const service = await testService(options);
  const db = createDocumentClient({ client: service.client });
  const cipher = localTokenCipher(undefined, portalCredentialScope);
  const events: PortalEvent[] = [];
  const pullLogs: Record<string, unknown>[] = [];
  const runtime = pullRuntime({
    db,
    tables: service.tables,
    cipher,
    events: { publish: async (event) => void events.push(event) },
    portals,
    baseUrls: new Map(Object.entries(options.baseUrls)),
    settings: { overlapMinutes: options.overlapMinutes ?? 15, failingMinutes: options.failingMinutes ?? 60 },
    http: portalHttp(options.http),
    log: (line) => pullLogs.push(line),
    ...(options.now && { now: options.now }),
  });
  const logins = new DynamoDbPortalLoginStore(db, service.tables.config);
  const admin: PortalLoginAdminDependencies = { logins, accounts: service.repository.accounts, cipher, portals: portals.map(({ source }) => source), ...(options.now && { now: options.now }) };

  /** Connects a login as `admin add-portal` does. */
  const connect = (input: Omit<ConnectPortalInput, 'projectId' | 'campaignId'> & { projectId?: string; campaignId?: string }) =>
    connectPortalLogin(admin, { projectId: 'PRJ-1', campaignId: 'CMP-1', ...input });

  /** One pull of a login now, as the schedule (or `pull-portal`) starts it: its AWS calls are the pull function's. */
  const pull = (portal: string, login: string) => asFunction('portal-pull', () => pullLogin(runtime, portal, login));

  const leadsOf = (accountId: string, projectIds: string[] = ['PRJ-1']) => service.repository.leadArchive.listLeads(accountId, projectIds);
  const rejectionsOf = (accountId: string) => service.repository.rejections.listRejections(accountId);

  return { ...service, db, pulls: runtime, logins, admin, events, pullLogs, connect, pull, leadsOf, rejectionsOf };
};

export type PortalTestService = Awaited<ReturnType<typeof portalTestService>>;
