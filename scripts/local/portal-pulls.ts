/**
 * Portal pulls under `npm start` (CONTRACT.md section 17, "Locally"): every PORTAL_PULL_SECONDS (60)
 * each connected login is pulled, from each portal's URL in the environment (PORTAL_99ACRES_URL,
 * PORTAL_MAGICBRICKS_URL, PORTAL_HOUSING_URL) or, when it is unset, from that portal's stand-in served
 * here on its wire; PORTAL_FAILING_MINUTES (a fraction allowed) and PORTAL_PULL_OVERLAP_MINUTES as the
 * stack's settings. Credentials open with the local key. Events go where the service's others go.
 */
import * as path from 'node:path';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import type { TableNames } from '../../shared/dynamodb/repository.ts';
import { pullEveryLogin, type PortalEventPublisher } from '../../shared/pulled/pull.ts';
import { pullRuntime } from '../../shared/pulled/runtime.ts';
import { portalCredentialCipher, pullSettingsFromEnvironment } from '../../shared/pulled/settings.ts';
import type { RunningStandIn } from '../../shared/pulled/stand-in.ts';
import { portals } from '../../shared/portals/registry.ts';

export interface PortalPullsOptions {
  readonly endpoint: string;
  readonly tables: TableNames;
  readonly env: NodeJS.ProcessEnv;
  readonly root: string;
  readonly events: PortalEventPublisher;
  readonly log: (line: string) => void;
}

export interface RunningPortalPulls {
  readonly banner: string[];
  stop(): Promise<void>;
}

/** PORTAL_PULL_SECONDS, checked (a positive number of seconds). */
export const portalPullSeconds = (env: NodeJS.ProcessEnv): number => {
  const text = env.PORTAL_PULL_SECONDS;
  if (text === undefined || text.trim() === '') return 60;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`PORTAL_PULL_SECONDS must be a number of seconds above 0, not ${JSON.stringify(text)}`);
  return value;
};

export const startPortalPulls = async ({ endpoint, tables, env, root, events, log }: PortalPullsOptions): Promise<RunningPortalPulls> => {
  const seconds = portalPullSeconds(env);
  const settings = pullSettingsFromEnvironment({ ...env, PORTAL_FAILING_MINUTES: env.PORTAL_FAILING_MINUTES });
  const standIns: RunningStandIn[] = [];
  const baseUrls = new Map<string, string>();
  const lines: string[] = [];
  for (const { source } of portals) {
    const configured = env[source.baseUrl.environment];
    if (configured) {
      baseUrls.set(source.name, configured);
      lines.push(`  ${source.title.padEnd(12)} ${configured} (${source.baseUrl.environment})`);
    } else {
      const { startStandIn } = (await import(path.join(root, source.standIn))) as { startStandIn: () => Promise<RunningStandIn> };
      const running = await startStandIn();
      standIns.push(running);
      baseUrls.set(source.name, running.url);
      lines.push(`  ${source.title.padEnd(12)} stand-in at ${running.url} (sample enquiries for any login; set ${source.baseUrl.environment} to pull the portal)`);
    }
  }
  const runtime = pullRuntime({
    db: createDocumentClient({ client: createDynamoDbClient({ endpoint }) }),
    tables,
    cipher: portalCredentialCipher(env),
    events,
    portals,
    baseUrls,
    settings,
    log: (line) => {
      if (line.event === 'portal_pull' && (Number(line.stored) > 0 || Number(line.recorded) > 0)) log(JSON.stringify(line));
      if (line.outcome === 'failed' || line.outcome === 'error') log(JSON.stringify(line));
    },
  });
  let running: Promise<void> | undefined;
  const pullAll = () => {
    running ??= pullEveryLogin(runtime, settings.concurrency)
      .catch((error: unknown) => log(`a pull failed: ${(error as Error).name}`))
      .finally(() => (running = undefined));
    return running;
  };
  const timer = setInterval(() => void pullAll(), seconds * 1000);
  // The first pull soon after the start, so a tester need not wait a whole period.
  const first = setTimeout(() => void pullAll(), Math.min(seconds, 5) * 1000);
  return {
    banner: [
      '',
      `Portals:             every connected login pulled every ${seconds} s (PORTAL_PULL_SECONDS); failing after ${settings.failingMinutes} min (PORTAL_FAILING_MINUTES)`,
      ...lines,
      '  connect one:       PORTAL_CREDENTIAL=any npm run admin -- add-portal --account ID --portal 99acres|magicbricks|housing --login L --project P --campaign C',
    ],
    stop: async () => {
      clearInterval(timer);
      clearTimeout(first);
      await running;
      await Promise.all(standIns.map((standIn) => standIn.close()));
    },
  };
};
