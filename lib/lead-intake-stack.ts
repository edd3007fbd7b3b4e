/**
 * The lead intake service in one stack: tables, a function and route per declared lead source
 * (shared/sources/registry.ts: the four lead endpoints, Google Ads lead forms; Meta Lead Ads' webhook,
 * queue and worker as its own construct), the HTTP API, the Lead Created event pipeline, monitoring. Environment-agnostic; every operator setting is a prop or a context value
 * (lib/settings.ts).
 */
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';
import { CfnOutput, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ADMIN_BASE_PATH, adminEntry } from '../shared/routes.ts';
import { adminRoutes } from '../shared/admin-routes.ts';
import { AUDIT_RETENTION_DAYS_VARIABLE } from '../shared/domain/audit.ts';
import { metaSource } from '../shared/meta/source.ts';
import { leadSources } from '../shared/sources/registry.ts';
import { LeadApi } from './constructs/lead-api.ts';
import { LeadEvents } from './constructs/lead-events.ts';
import { LeadFunction } from './constructs/lead-function.ts';
import { LeadSourceFunction } from './constructs/lead-source-function.ts';
import { LeadReplays } from './constructs/lead-replays.ts';
import { LeadTables } from './constructs/lead-tables.ts';
import { MetaLeadAds } from './constructs/meta-lead-ads.ts';
import { grantChallengeSecrets } from './constructs/challenge-secrets.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { SourceWatch } from './constructs/source-watch.ts';
import { RetentionSweep } from './constructs/retention-sweep.ts';
import { grantPortalCredentials } from './constructs/portal-credentials.ts';
import { PortalPulls } from './constructs/portal-pulls.ts';
import { PORTAL_PULL_FUNCTION_NAME } from '../shared/pulled/remote-pull.ts';
import * as iam from 'aws-cdk-lib/aws-iam';
import { portals } from '../shared/portals/registry.ts';
import { sourceWatchSettings } from '../shared/source-watch-settings.ts';
import { functionEnvironmentOf, resolveSettings, routeThrottleOf, type LeadIntakeSettings } from './settings.ts';
import { leadsTable } from '../shared/dynamodb/tables.ts';
import { ERASURE_REASON_PK_PREFIX } from '../shared/dynamodb/erasure-reasons.ts';

/** Repository root: the `entry` paths of the source descriptors (shared/sources/registry.ts) are relative to it. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LeadIntakeStackProps extends StackProps, Partial<LeadIntakeSettings> {}

/** Output keys, for tools that read the deployed stack (the admin CLI reads the table names). */
export const stackOutputs = {
  baseUrl: 'BaseUrl',
  adminBaseUrl: 'AdminBaseUrl',
  configTableName: 'ConfigTableName',
  leadsTableName: 'LeadsTableName',
  personKeySecretArn: 'PersonKeySecretArn',
  eventBusName: 'EventBusName',
  eventBusArn: 'EventBusArn',
  eventArchiveArn: 'EventArchiveArn',
  crmDeliveryRuleArn: 'CrmDeliveryRuleArn',
  crmReplayRuleArn: 'CrmReplayRuleArn',
  alarmTopicArn: 'AlarmTopicArn',
  dashboardName: 'DashboardName',
  metaSecretArn: 'MetaSecretArn',
  metaPageTokenKeyArn: 'MetaPageTokenKeyArn',
  metaDeadLetterQueueUrl: 'MetaDeadLetterQueueUrl',
  portalPullFunctionName: 'PortalPullFunctionName',
} as const;

export class LeadIntakeStack extends Stack {
  readonly settings: LeadIntakeSettings;
  readonly portalPulls: PortalPulls;

  constructor(scope: Construct, id: string, props: LeadIntakeStackProps = {}) {
    super(scope, id, { description: 'Lead intake service of the real-estate CRM', ...props });
    const settings = resolveSettings(this.node, props);
    this.settings = settings;
    Tags.of(this).add('service', 'lead-intake');
    Tags.of(this).add('stage', settings.stage);

    const tables = new LeadTables(this, 'Tables');

    // One function for the admin API: configuration in the Config table; on the Leads table, the
    // rejection log's pages, the release of a quarantined submission into a lead, and a person's
    // access and erasure.
    const admin = new LeadFunction(this, 'Admin', {
      entry: path.join(projectRoot, adminEntry),
      projectRoot,
      description: `Lead intake ${settings.stage}: admin API ${ADMIN_BASE_PATH}`,
      memorySize: settings.memorySize,
      logRetentionDays: settings.logRetentionDays,
      environment: {
        ...tables.environment,
        // `GET .../sources` judges each channel's state with the watch's own settings (CONTRACT.md section 16).
        [sourceWatchSettings.minLeads]: String(settings.silenceMinLeads),
        [sourceWatchSettings.minMinutes]: String(settings.silenceMinMinutes),
        [sourceWatchSettings.quietHours]: settings.silenceQuietHours,
        // How long the audit entries it writes are kept (CONTRACT.md section 18).
        [AUDIT_RETENTION_DAYS_VARIABLE]: String(settings.auditRetentionDays),
      },
    });
    tables.grantAdmin(admin.function);

    const api = new LeadApi(this, 'Api', {
      apiName: `lead-intake-${settings.stage}`,
      adminRoutes,
      adminFunction: admin.function,
      defaultThrottle: { rateLimit: settings.throttlingRateLimit, burstLimit: settings.throttlingBurstLimit },
      logRetentionDays: settings.logRetentionDays,
    });

    // Every source whose function makes the lead in the request; the asynchronous ones (Meta) are their own constructs below.
    const sourceFunctions = leadSources
      .filter((source) => !source.worker)
      .map(
        (source) =>
          new LeadSourceFunction(this, {
            source,
            stage: settings.stage,
            projectRoot,
            api,
            tables,
            ...(source.throttle && { throttle: routeThrottleOf(settings, source.throttle) }),
            memorySize: settings.memorySize,
            logRetentionDays: settings.logRetentionDays,
            configCacheTtlSeconds: settings.configCacheTtlSeconds,
            rejectionRecordsPerMinute: settings.rejectionRecordsPerMinute,
            corsAllowedOrigins: settings.corsAllowedOrigins,
            settingsEnvironment: functionEnvironmentOf(settings, source),
          }),
      );

    // The Lead Created and Lead Erased pipes' enrichment step: it reshapes records, and reads one thing, a
    // removed lead's erasure reason (CONTRACT.md section 18), by GetItem of ERASED# items alone.
    const enrichment = new LeadFunction(this, 'LeadEventsEnrichment', {
      entry: path.join(projectRoot, 'functions/lead-events/handler.ts'),
      projectRoot,
      description: `Lead intake ${settings.stage}: Lead Created events, whole leads from the Leads stream`,
      memorySize: 256,
      logRetentionDays: settings.logRetentionDays,
      environment: { [leadsTable.envVar]: tables.leads.tableName },
    });
    iam.Grant.addToPrincipal({
      grantee: enrichment.function,
      actions: ['dynamodb:GetItem'],
      resourceArns: [tables.leads.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${ERASURE_REASON_PK_PREFIX}*`] } },
    });

    const events = new LeadEvents(this, 'Events', {
      leadsTable: tables.leads,
      logRetentionDays: settings.logRetentionDays,
      enrichment: enrichment.function,
      archiveDays: settings.eventArchiveDays,
      ...(settings.crmWebhookUrl &&
        settings.crmWebhookAuthorizationSecret && {
          crm: {
            url: settings.crmWebhookUrl,
            authorizationSecret: settings.crmWebhookAuthorizationSecret,
            authorizationHeader: settings.crmWebhookAuthorizationHeader,
            rateLimitPerSecond: settings.crmWebhookRateLimitPerSecond,
          },
        }),
    });

    // With CRM delivery, replays of the archive reach it through a filter that skips erased leads
    // (CONTRACT.md section 14); the filter reads lead items only (lib/constructs/lead-replays.ts).
    const replayFilter =
      events.crmDestination &&
      new LeadFunction(this, 'LeadReplaysFilter', {
        entry: path.join(projectRoot, 'functions/lead-replays/handler.ts'),
        projectRoot,
        description: `Lead intake ${settings.stage}: replayed lead events to the CRM, without erased leads`,
        memorySize: 256,
        logRetentionDays: settings.logRetentionDays,
        environment: { [leadsTable.envVar]: tables.leads.tableName },
      });

    const monitoring = new Monitoring(this, 'Monitoring', {
      dashboardName: `lead-intake-${settings.stage}`,
      api: api.api,
      functions: {
        ...Object.fromEntries(sourceFunctions.map(({ source, function: fn }) => [source.stack.monitoringName, fn.function])),
        admin: admin.function,
        leadEvents: enrichment.function,
        ...(replayFilter && { leadReplays: replayFilter.function }),
      },
      tables: { Config: tables.config, Leads: tables.leads },
      pipes: events.pipes,
      deadLetterQueue: events.deadLetterQueue,
      ...(events.deliveryDeadLetterQueue && events.deliveryRule && { delivery: { busName: events.bus.eventBusName, deadLetterQueue: events.deliveryDeadLetterQueue, rule: events.deliveryRule } }),
      alarmEmail: settings.alarmEmail,
    });

    const replays =
      events.crmDestination &&
      replayFilter &&
      new LeadReplays(this, 'Replays', { bus: events.bus, destination: events.crmDestination, leadsTable: tables.leads, filter: replayFilter.function, logGroup: events.logGroup, monitoring });

    // A source gone quiet (CONTRACT.md section 16): counted from the Leads stream, checked on a schedule.
    new SourceWatch(this, 'SourceWatch', {
      stage: settings.stage,
      projectRoot,
      entry: path.join(projectRoot, 'functions/source-watch/handler.ts'),
      logRetentionDays: settings.logRetentionDays,
      leadsTable: tables.leads,
      configTable: tables.config,
      bus: events.bus,
      checkMinutes: settings.silenceCheckMinutes,
      minLeads: settings.silenceMinLeads,
      minMinutes: settings.silenceMinMinutes,
      quietHours: settings.silenceQuietHours,
      alarm: settings.silenceAlarm,
      monitoring,
    });

    // Kept only as long as needed (CONTRACT.md section 18): the daily sweep of aged-out leads and records.
    new RetentionSweep(this, 'RetentionSweep', {
      stage: settings.stage,
      projectRoot,
      entry: path.join(projectRoot, 'functions/retention-sweep/handler.ts'),
      logRetentionDays: settings.logRetentionDays,
      leadsTable: tables.leads,
      configTable: tables.config,
      personKey: tables.personKey,
      hourUtc: settings.retentionSweepHourUtc,
      monitoring,
    });

    // The asynchronous source: its webhook queues, its worker makes the leads.
    const meta = new MetaLeadAds(this, metaSource.stack.functionPath[0], {
      source: metaSource,
      stage: settings.stage,
      projectRoot,
      httpApi: api.api,
      tables,
      monitoring,
      memorySize: settings.memorySize,
      logRetentionDays: settings.logRetentionDays,
      configCacheTtlSeconds: settings.configCacheTtlSeconds,
      ...(this.node.tryGetContext('metaGraphApiUrl') && { graphApiUrl: String(this.node.tryGetContext('metaGraphApiUrl')) }),
    });

    // Every other source signed by the Meta app (WhatsApp's messages) checks signatures and the verify
    // token with the app's one secret: read where it is, never copied.
    for (const { source, function: fn } of sourceFunctions) if (source.authentication === 'platform-signature') meta.grantAppSecrets(fn.function);

    // Portal logins (CONTRACT.md section 17) through the admin API: their credentials sealed with the
    // page-token key, under their own encryption context only (the admin function never opens one).
    grantPortalCredentials(admin.function, meta.pageTokenKey, 'seal');

    // The schedule, the queues and the pull function, from the pulls' fixed address (lib/constructs/portal-pulls.ts).
    const portalPulls = new PortalPulls(this, 'PortalPulls', {
      stage: settings.stage,
      projectRoot,
      entries: { pull: path.join(projectRoot, 'functions/portal-pull/handler.ts'), schedule: path.join(projectRoot, 'functions/portal-pull/schedule.ts') },
      portals,
      tables,
      bus: events.bus,
      credentialKey: meta.pageTokenKey,
      pullMinutes: settings.portalPullMinutes,
      overlapMinutes: settings.portalPullOverlapMinutes,
      failingMinutes: settings.portalFailingMinutes,
      concurrency: settings.portalPullConcurrency,
      egress: settings.portalEgress,
      baseUrls: settings.portalUrls ?? {},
      memorySize: settings.memorySize,
      logRetentionDays: settings.logRetentionDays,
      monitoring,
    });
    this.portalPulls = portalPulls;
    // A pull asked for through the admin API runs in the pull function, from the address the portals allow-list.
    admin.function.addEnvironment(PORTAL_PULL_FUNCTION_NAME, portalPulls.pullFunction.functionName);
    iam.Grant.addToPrincipal({ grantee: admin.function, actions: ['lambda:InvokeFunction'], resourceArns: [portalPulls.pullFunction.functionArn] });

    grantChallengeSecrets({
      key: meta.pageTokenKey,
      openers: sourceFunctions.filter(({ source }) => source.browserFacing).map(({ function: fn }) => fn.function),
      sealers: [admin.function],
    });

    new CfnOutput(this, stackOutputs.baseUrl, { value: api.baseUrl, description: '{base_url}: POST {base_url}/api/<endpoint>-lead-create' });
    new CfnOutput(this, stackOutputs.adminBaseUrl, { value: `${api.baseUrl}${ADMIN_BASE_PATH}`, description: 'Admin API (IAM authorization, SigV4 for execute-api)' });
    new CfnOutput(this, stackOutputs.configTableName, { value: tables.config.tableName, description: 'Config table (API keys, accounts): seed it with the admin CLI' });
    new CfnOutput(this, stackOutputs.leadsTableName, { value: tables.leads.tableName, description: 'Leads table' });
    new CfnOutput(this, stackOutputs.personKeySecretArn, {
      value: tables.personKey.secretArn,
      description: 'Key of the person lookup items (admin person / erase: PERSON_KEY_SECRET_ARN; the operator needs secretsmanager:GetSecretValue on it)',
    });
    new CfnOutput(this, stackOutputs.eventBusName, { value: events.bus.eventBusName, description: 'Bus carrying Lead Created events' });
    new CfnOutput(this, stackOutputs.eventBusArn, { value: events.bus.eventBusArn, description: 'Bus carrying Lead Created events (replay-events: LEAD_EVENTS_BUS_ARN)' });
    new CfnOutput(this, stackOutputs.eventArchiveArn, { value: events.archive.archiveArn, description: 'Archive of Lead Created events (replay-events: LEAD_EVENTS_ARCHIVE_ARN)' });
    if (events.deliveryRule) {
      new CfnOutput(this, stackOutputs.crmDeliveryRuleArn, { value: events.deliveryRule.ruleArn, description: 'Rule delivering published events to the CRM (never replays)' });
    }
    if (replays) {
      new CfnOutput(this, stackOutputs.crmReplayRuleArn, { value: replays.rule.ruleArn, description: 'Rule taking replays to the CRM, without erased leads (replay-events: LEAD_EVENTS_REPLAY_RULE_ARN)' });
    }
    new CfnOutput(this, stackOutputs.alarmTopicArn, { value: monitoring.topic.topicArn, description: 'SNS topic of the alarms' });
    new CfnOutput(this, stackOutputs.dashboardName, { value: monitoring.dashboard.dashboardName, description: 'CloudWatch dashboard' });
    new CfnOutput(this, stackOutputs.metaSecretArn, { value: meta.secret.secretArn, description: "Meta app secret and webhook verify token: put the app's App Secret in it" });
    new CfnOutput(this, stackOutputs.metaPageTokenKeyArn, { value: meta.pageTokenKey.keyArn, description: 'KMS key of page tokens: META_PAGE_TOKEN_KEY_ID for admin add-meta-page' });
    new CfnOutput(this, stackOutputs.portalPullFunctionName, {
      value: portalPulls.pullFunction.functionName,
      description: `The portal pull function: ${PORTAL_PULL_FUNCTION_NAME} for admin pull-portal, so it pulls from the portals' allow-listed address (the operator needs lambda:InvokeFunction on it)`,
    });
    new CfnOutput(this, stackOutputs.metaDeadLetterQueueUrl, { value: meta.deadLetterQueue.queueUrl, description: 'Meta leadgen changes that failed every retry (redrive after fixing)' });
  }
}
