/**
 * Operator settings of the stack: each one is a typed prop with a documented default, and each can be given
 * as CDK context instead (`cdk deploy -c stage=prod -c alarmEmail=ops@example.com`), under the same name.
 * An explicit prop wins over context, and context over the default. A source's own route throttle is
 * declared by its descriptor (shared/sources/registry.ts): its two settings are derived from there.
 */
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { defaultSilenceSettings, InvalidQuietHoursError, parseQuietHours } from '../shared/domain/source-watch.ts';
import { MIN_AUDIT_RETENTION_DAYS } from '../shared/domain/audit.ts';
import type { FunctionSettingDeclaration, LeadSourceDescriptor, RouteThrottleDeclaration } from '../shared/sources/descriptor.ts';
import { leadSources, type DeclaredLeadSource } from '../shared/sources/registry.ts';
import { portals } from '../shared/portals/registry.ts';
import { pullSettings } from '../shared/pulled/wire-names.ts';
import { portalEgressKinds, type PortalEgress } from './constructs/portal-pulls.ts';

/** The names of the throttle settings the sources declare (`websiteThrottlingRateLimit`, `callsThrottlingBurstLimit`, ...). */
type SourceThrottleSettingName = Extract<DeclaredLeadSource, { readonly throttle: RouteThrottleDeclaration }>['throttle']['rateLimit' | 'burstLimit']['name'];

/**
 * Each source's own route throttle, throttled apart from the server-to-server routes' default: the
 * settings its descriptor's `throttle` declares, with their defaults (the website's, Google
 * Ads lead forms', the call webhook's: `<name>ThrottlingRateLimit`, requests per second, and
 * `<name>ThrottlingBurstLimit`, the burst above it; docs/deployment.md).
 */
export type SourceThrottleSettings = { readonly [name in SourceThrottleSettingName]: number };

/** The names of the settings the sources declare for their functions (`whatsappConversationDays`, `callRequestsPerKeyPerMinute`). */
type SourceFunctionSettingName = Extract<DeclaredLeadSource, { readonly settings: readonly FunctionSettingDeclaration[] }>['settings'][number]['name'];

/** Each source's own function settings (its descriptor's `settings`), with their defaults: docs/deployment.md. */
export type SourceFunctionSettings = { readonly [name in SourceFunctionSettingName]: number };

/** Every function setting the sources declare. */
const sourceFunctionSettings: readonly FunctionSettingDeclaration[] = leadSources.flatMap(({ settings }) => settings ?? []);

/** The bounds of every route throttle's two settings, the stage default's and each source's: a burst is a whole number. */
export const routeThrottleBounds = {
  rateLimit: { min: 1, max: 10_000, integer: false },
  burstLimit: { min: 1, max: 5_000, integer: true },
} as const;

/** Each declared throttle setting, with the bounds of its kind. */
const sourceThrottleSettings = leadSources.flatMap(({ throttle }) =>
  throttle ? [{ ...throttle.rateLimit, ...routeThrottleBounds.rateLimit }, { ...throttle.burstLimit, ...routeThrottleBounds.burstLimit }] : [],
);

export interface LeadIntakeSettings extends SourceThrottleSettings, SourceFunctionSettings {
  /**
   * Name of the deployment (`dev`, `staging`, `prod`): it names the stack (`LeadIntake-<stage>`), the API,
   * the dashboard, and tags every resource. Letters, digits and `-`, starting with a letter.
   * @default 'dev'
   */
  readonly stage: string;
  /**
   * Steady-state requests per second each server-to-server route (portal A, portal B, social) lets
   * through before API Gateway answers 429: the stage's default route throttle. @default 50
   */
  readonly throttlingRateLimit: number;
  /** Burst of requests each server-to-server route absorbs above the rate. @default 100 */
  readonly throttlingBurstLimit: number;
  /**
   * Origins allowed to post to the website endpoint from a browser; `*` allows any. Context takes a
   * comma-separated string (`-c corsAllowedOrigins=https://a.example,https://b.example`) or a JSON array.
   * @default ['*']
   */
  readonly corsAllowedOrigins: readonly string[];
  /**
   * Days the function, access and pipe logs are kept; one of CloudWatch Logs' allowed values
   * (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, ...). Below 365 (the DPDP Rules'
   * year of processing logs, CONTRACT.md section 18) only with `allowShortLogRetention`. @default 365
   */
  readonly logRetentionDays: number;
  /** Allows `logRetentionDays` below 365: the logs then cannot show a year of processing (docs/deployment.md says what that gives up). @default false */
  readonly allowShortLogRetention: boolean;
  /** Days each audit entry (every look at a person's data, CONTRACT.md section 18) is kept, from 365 to 3,650. @default 365 */
  readonly auditRetentionDays: number;
  /** Address subscribed by e-mail to the alarm topic (it must confirm). @default none: no subscription */
  readonly alarmEmail?: string;
  /** Memory of each lead function, in MB (arm64 CPU share grows with it). @default 512 */
  readonly memorySize: number;
  /**
   * Seconds a function container keeps an account's configuration and API key before re-reading them:
   * also the longest a revoked key or a changed setting can take to apply. @default 30
   */
  readonly configCacheTtlSeconds: number;
  /**
   * Rejection records stored per browser key in one calendar minute (UTC); past it the refusals are
   * counted on one `suppressed` item per key and minute (CONTRACT.md section 11). @default 60
   */
  readonly rejectionRecordsPerMinute: number;
  /**
   * HTTPS URL of the CRM's endpoint that receives every Lead Created event (an EventBridge API destination
   * POSTs `{"id", "source", "detail-type", "time", "detail"}` to it, retrying 429, 5xx and timeouts for up
   * to 24 hours). @default none: events stay on the bus for subscribers in AWS
   */
  readonly crmWebhookUrl?: string;
  /**
   * Name or ARN of the Secrets Manager secret whose value is sent in the authorization header of each
   * delivery (`Bearer ...`, or whatever the CRM expects). Required with `crmWebhookUrl`; the value never
   * appears in the template. @default none
   */
  readonly crmWebhookAuthorizationSecret?: string;
  /** Header the secret's value is sent in. @default 'Authorization' */
  readonly crmWebhookAuthorizationHeader: string;
  /** Most deliveries per second to the CRM's endpoint (the rest wait, they are not dropped). @default 20 */
  readonly crmWebhookRateLimitPerSecond: number;
  /** Days the event bus archive keeps Lead Created events, for `npm run admin -- replay-events`. @default 30 */
  readonly eventArchiveDays: number;
  /**
   * A source gone quiet (CONTRACT.md section 16): minutes between two checks of the channels (an
   * EventBridge schedule), from 1 to 1,440. @default 15
   */
  readonly silenceCheckMinutes: number;
  /** Leads in the last 14 days from which a channel is watched, from 2 to 100,000. @default 10 */
  readonly silenceMinLeads: number;
  /** The least silence, in minutes outside quiet hours, that makes a watched channel silent (from 1 to 100,000). @default 360 */
  readonly silenceMinMinutes: number;
  /** Quiet hours, India time, whose minutes a silence does not count: `HH:MM-HH:MM` (across midnight when the first is later), or `none`. @default '22:00-08:00' */
  readonly silenceQuietHours: string;
  /** An alarm (to the alarm topic) when any account has a silent channel. @default false */
  readonly silenceAlarm: boolean;
  /**
   * The hour (UTC, 0 to 23) of the daily retention sweep (CONTRACT.md section 18), which erases the leads
   * and rejection records each account keeps no longer. @default 21 (02:30 India time is within it)
   */
  readonly retentionSweepHourUtc: number;
  /** Portal enquiries pulled (CONTRACT.md section 17): minutes between two pulls of each connected login, from 1 to 60. @default 5 */
  readonly portalPullMinutes: number;
  /** Minutes each pull reaches back before its login's watermark, for enquiries a portal files late (0 to 1,440). @default 15 */
  readonly portalPullOverlapMinutes: number;
  /** Minutes of failed pulls after which a login turns `failing` (one Portal Failing event), from 1 to 10,080. @default 60 */
  readonly portalFailingMinutes: number;
  /** Pulls of one portal running at once, at most (its queue's consumers), from 2 to 50. @default 4 */
  readonly portalPullConcurrency: number;
  /**
   * Where pulls reach the portals from: `fixed`, one Elastic IP of a NAT gateway in a VPC of the pulls'
   * own (output `PortalEgressAddress`, for the portals to allow-list; about USD 45 a month), or `shared`,
   * Lambda's own addresses, which change (only for portals that allow-list none). @default 'fixed'
   */
  readonly portalEgress: PortalEgress;
  /**
   * A portal's base URL other than its own (a proxy, a portal's test system), by portal name: context
   * takes JSON (`-c 'portalUrls={"99acres":"https://..."}'`). @default none: each portal's own
   */
  readonly portalUrls?: Readonly<Record<string, string>>;
}

export const defaultSettings: LeadIntakeSettings = {
  stage: 'dev',
  throttlingRateLimit: 50,
  throttlingBurstLimit: 100,
  ...(Object.fromEntries(sourceThrottleSettings.map(({ name, default: value }) => [name, value])) as SourceThrottleSettings),
  ...(Object.fromEntries(sourceFunctionSettings.map(({ name, default: value }) => [name, value])) as SourceFunctionSettings),
  corsAllowedOrigins: ['*'],
  logRetentionDays: 365,
  allowShortLogRetention: false,
  auditRetentionDays: MIN_AUDIT_RETENTION_DAYS,
  memorySize: 512,
  configCacheTtlSeconds: 30,
  rejectionRecordsPerMinute: 60,
  crmWebhookAuthorizationHeader: 'Authorization',
  crmWebhookRateLimitPerSecond: 20,
  eventArchiveDays: 30,
  silenceCheckMinutes: 15,
  silenceMinLeads: defaultSilenceSettings.minLeads,
  silenceMinMinutes: defaultSilenceSettings.minMinutes,
  silenceQuietHours: defaultSilenceSettings.quietHours,
  silenceAlarm: false,
  retentionSweepHourUtc: 21,
  portalPullMinutes: pullSettings.pullMinutes.default,
  portalPullOverlapMinutes: pullSettings.overlapMinutes.default,
  portalFailingMinutes: pullSettings.failingMinutes.default,
  portalPullConcurrency: pullSettings.concurrency.default,
  portalEgress: 'fixed',
};

type SettingName = keyof LeadIntakeSettings;

/** Props, then context, then defaults; every value is checked, so a typo fails the synth, not the deploy. */
export function resolveSettings(node: Node, props: Partial<LeadIntakeSettings> = {}): LeadIntakeSettings {
  const raw = (name: SettingName): unknown => props[name] ?? node.tryGetContext(name) ?? defaultSettings[name];
  // The sources' throttles, checked against the bounds of every route throttle.
  const sourceThrottles = Object.fromEntries(
    sourceThrottleSettings.map(({ name, min, max, integer }) => [name, number(name as SettingName, raw(name as SettingName), { min, max, integer })]),
  ) as SourceThrottleSettings;
  const functionSettings = Object.fromEntries(
    sourceFunctionSettings.map(({ name, min, max, integer }) => [name, number(name as SettingName, raw(name as SettingName), { min, max, integer: integer ?? false })]),
  ) as SourceFunctionSettings;

  const alarmEmail = raw('alarmEmail');
  const crmWebhookUrl = optionalText(raw('crmWebhookUrl'));
  const crmWebhookAuthorizationSecret = optionalText(raw('crmWebhookAuthorizationSecret'));
  if (crmWebhookUrl !== undefined) {
    webhookUrl(crmWebhookUrl);
    if (crmWebhookAuthorizationSecret === undefined) {
      throw new Error('crmWebhookUrl needs crmWebhookAuthorizationSecret: the name or ARN of the Secrets Manager secret holding the authorization header value');
    }
  }
  return {
    stage: stageName(raw('stage')),
    throttlingRateLimit: number('throttlingRateLimit', raw('throttlingRateLimit'), routeThrottleBounds.rateLimit),
    throttlingBurstLimit: number('throttlingBurstLimit', raw('throttlingBurstLimit'), routeThrottleBounds.burstLimit),
    ...sourceThrottles,
    ...functionSettings,
    corsAllowedOrigins: origins(raw('corsAllowedOrigins')),
    logRetentionDays: retentionDays(raw('logRetentionDays'), flag('allowShortLogRetention', raw('allowShortLogRetention'))),
    allowShortLogRetention: flag('allowShortLogRetention', raw('allowShortLogRetention')),
    auditRetentionDays: number('auditRetentionDays', raw('auditRetentionDays'), { min: MIN_AUDIT_RETENTION_DAYS, max: 3_650, integer: true }),
    alarmEmail: alarmEmail === undefined || alarmEmail === '' ? undefined : email(alarmEmail),
    memorySize: number('memorySize', raw('memorySize'), { min: 128, max: 10_240, integer: true }),
    configCacheTtlSeconds: number('configCacheTtlSeconds', raw('configCacheTtlSeconds'), { min: 0, max: 3_600, integer: true }),
    rejectionRecordsPerMinute: number('rejectionRecordsPerMinute', raw('rejectionRecordsPerMinute'), { min: 1, max: 100_000, integer: true }),
    ...(crmWebhookUrl !== undefined && { crmWebhookUrl }),
    ...(crmWebhookAuthorizationSecret !== undefined && { crmWebhookAuthorizationSecret }),
    crmWebhookAuthorizationHeader: headerName(raw('crmWebhookAuthorizationHeader')),
    crmWebhookRateLimitPerSecond: number('crmWebhookRateLimitPerSecond', raw('crmWebhookRateLimitPerSecond'), { min: 1, max: 300, integer: true }),
    eventArchiveDays: number('eventArchiveDays', raw('eventArchiveDays'), { min: 1, max: 3_650, integer: true }),
    silenceCheckMinutes: number('silenceCheckMinutes', raw('silenceCheckMinutes'), { min: 1, max: 1_440, integer: true }),
    silenceMinLeads: number('silenceMinLeads', raw('silenceMinLeads'), { min: 2, max: 100_000, integer: true }),
    silenceMinMinutes: number('silenceMinMinutes', raw('silenceMinMinutes'), { min: 1, max: 100_000, integer: true }),
    silenceQuietHours: quietHours(raw('silenceQuietHours')),
    silenceAlarm: flag('silenceAlarm', raw('silenceAlarm')),
    retentionSweepHourUtc: number('retentionSweepHourUtc', raw('retentionSweepHourUtc'), { min: 0, max: 23, integer: true }),
    portalPullMinutes: number('portalPullMinutes', raw('portalPullMinutes'), { min: 1, max: 60, integer: true }),
    portalPullOverlapMinutes: number('portalPullOverlapMinutes', raw('portalPullOverlapMinutes'), { min: 0, max: 1_440, integer: true }),
    portalFailingMinutes: number('portalFailingMinutes', raw('portalFailingMinutes'), { min: 1, max: 10_080, integer: true }),
    portalPullConcurrency: number('portalPullConcurrency', raw('portalPullConcurrency'), { min: 2, max: 50, integer: true }),
    portalEgress: oneOf('portalEgress', raw('portalEgress'), portalEgressKinds),
    ...optionalPortalUrls(raw('portalUrls')),
  };
}

function oneOf<T extends string>(name: SettingName, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw new Error(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
}

/** Each named portal's https:// base URL (JSON in context); a name no portal has is refused, so a typo fails the synth. */
function optionalPortalUrls(value: unknown): { portalUrls?: Readonly<Record<string, string>> } {
  if (value === undefined || value === null || value === '') return {};
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`portalUrls must be an object of portal name to URL; got ${JSON.stringify(value)}`);
  const names = portals.map(({ source }) => source.name);
  for (const [name, url] of Object.entries(parsed)) {
    if (!names.includes(name)) throw new Error(`portalUrls: ${JSON.stringify(name)} is no portal (${names.join(', ')})`);
    if (typeof url !== 'string' || !/^https:\/\/[^\s]+$/.test(url)) throw new Error(`portalUrls.${name} must be an https:// URL; got ${JSON.stringify(url)}`);
  }
  return { portalUrls: parsed as Record<string, string> };
}

/** The stage as given in context (or the default), for naming the stack before it exists. */
export function stageFromContext(node: Node): string {
  return stageName(node.tryGetContext('stage') ?? defaultSettings.stage);
}

export function stackNameFor(stage: string): string {
  return `LeadIntake-${stage}`;
}

function stageName(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(value)) {
    throw new Error(`stage must be 1 to 20 letters, digits or '-', starting with a letter; got ${JSON.stringify(value)}`);
  }
  return value;
}

function number(name: SettingName, value: unknown, limits: { min: number; max: number; integer?: boolean }): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < limits.min || n > limits.max || (limits.integer && !Number.isInteger(n))) {
    const kind = limits.integer ? 'an integer' : 'a number';
    throw new Error(`${name} must be ${kind} from ${limits.min} to ${limits.max}; got ${JSON.stringify(value)}`);
  }
  return n;
}

function quietHours(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidQuietHoursError(JSON.stringify(value));
  parseQuietHours(value);
  return value.trim();
}

/** A boolean, or its text as context gives it (`-c silenceAlarm=true`). */
function flag(name: SettingName, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`${name} must be true or false; got ${JSON.stringify(value)}`);
}

/** The shortest log retention that keeps a year of processing logs (DPDP Rules 2025, rule 6; CONTRACT.md section 18). */
export const MIN_LOG_RETENTION_DAYS = 365;

function retentionDays(value: unknown, allowShort: boolean): number {
  const days = number('logRetentionDays', value, { min: 1, max: 3_653, integer: true });
  const allowed = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number' && v !== logs.RetentionDays.INFINITE);
  if (!allowed.includes(days)) {
    throw new Error(`logRetentionDays must be one of ${allowed.join(', ')}; got ${days}`);
  }
  if (days < MIN_LOG_RETENTION_DAYS && !allowShort) {
    throw new Error(
      `logRetentionDays ${days} is below ${MIN_LOG_RETENTION_DAYS}: logs of processing are kept at least a year (DPDP Rules 2025); set allowShortLogRetention=true to keep them shorter anyway`,
    );
  }
  return days;
}

function origins(value: unknown): readonly string[] {
  let list: unknown = value;
  if (typeof value === 'string') {
    list = value.trim().startsWith('[') ? JSON.parse(value) : value.split(',').map((o) => o.trim());
  }
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`corsAllowedOrigins must be '*' or a list of origins; got ${JSON.stringify(value)}`);
  }
  for (const origin of list) {
    if (typeof origin !== 'string' || (origin !== '*' && !/^https?:\/\/[^\s,/]+$/.test(origin))) {
      throw new Error(`corsAllowedOrigins: each origin is '*' or scheme://host[:port] with no path; got ${JSON.stringify(origin)}`);
    }
  }
  return list as string[];
}

function email(value: unknown): string {
  if (typeof value !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) {
    throw new Error(`alarmEmail must be an e-mail address; got ${JSON.stringify(value)}`);
  }
  return value;
}

function optionalText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`expected text; got ${JSON.stringify(value)}`);
  return value.trim();
}

function webhookUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // API destinations deliver over HTTPS only.
  if (!url || url.protocol !== 'https:' || url.username || url.password) {
    throw new Error(`crmWebhookUrl must be an https:// URL without credentials in it; got ${JSON.stringify(value)}`);
  }
  return value;
}

function headerName(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(value)) {
    throw new Error(`crmWebhookAuthorizationHeader must be an HTTP header name; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A route's throttle from the settings its source's descriptor declares (`googleAdsThrottlingRateLimit`, ...), resolved. */
export const routeThrottleOf = (settings: LeadIntakeSettings, throttle: RouteThrottleDeclaration): { rateLimit: number; burstLimit: number } => {
  const value = (name: string): number => {
    const setting = (settings as unknown as Record<string, unknown>)[name];
    if (typeof setting !== 'number') throw new Error(`${name} is not a numeric setting of the stack (lib/settings.ts)`);
    return setting;
  };
  return { rateLimit: value(throttle.rateLimit.name), burstLimit: value(throttle.burstLimit.name) };
};

/** A source's function settings (its descriptor's `settings`), resolved, by the environment variable its function reads each from. */
export const functionEnvironmentOf = (settings: LeadIntakeSettings, source: Pick<LeadSourceDescriptor, 'settings'>): Record<string, string> =>
  Object.fromEntries(
    (source.settings ?? []).map(({ name, environment }) => {
      const setting = (settings as unknown as Record<string, unknown>)[name];
      if (typeof setting !== 'number') throw new Error(`${name} is not a numeric setting of the stack (lib/settings.ts)`);
      return [environment, String(setting)];
    }),
  );
