import { describe, expect, test } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { defaultSettings, resolveSettings, stackNameFor, stageFromContext } from '../../lib/settings.ts';
import { leadSources } from '../../shared/sources/registry.ts';

const withContext = (context: Record<string, unknown>) => new App({ context }).node;

/** Each declared source's throttle settings (lib/settings.ts derives them from the registry): rate, then burst. */
const sourceThrottles = leadSources.flatMap(({ throttle }) => (throttle ? [throttle.rateLimit, throttle.burstLimit] : []));
/** Given values for them: a rate of 2.5 (a fraction is allowed), a burst of 5 (a whole number). */
const givenThrottles = (read: (value: number) => unknown) =>
  Object.fromEntries(sourceThrottles.map((setting, i) => [setting.name, read(i % 2 === 0 ? 2.5 : 5)]));

describe('Operator settings', () => {
  test('have documented defaults', () => {
    expect(resolveSettings(withContext({}))).toEqual({
      stage: 'dev', throttlingRateLimit: 50, throttlingBurstLimit: 100, websiteThrottlingRateLimit: 20, websiteThrottlingBurstLimit: 40, corsAllowedOrigins: ['*'],
      logRetentionDays: 365, allowShortLogRetention: false, auditRetentionDays: 365, alarmEmail: undefined, memorySize: 512, configCacheTtlSeconds: 30, rejectionRecordsPerMinute: 60,
      crmWebhookAuthorizationHeader: 'Authorization', crmWebhookRateLimitPerSecond: 20, eventArchiveDays: 30,
      ...Object.fromEntries(sourceThrottles.map((setting) => [setting.name, setting.default])),
      callRequestsPerKeyPerMinute: 300, whatsappConversationDays: 7,
      silenceCheckMinutes: 15, silenceMinLeads: 10, silenceMinMinutes: 360, silenceQuietHours: '22:00-08:00', silenceAlarm: false,
      retentionSweepHourUtc: 21,
      portalPullMinutes: 5, portalPullOverlapMinutes: 15, portalFailingMinutes: 60, portalPullConcurrency: 4, portalEgress: 'fixed',
    });
    expect(defaultSettings.crmWebhookUrl).toBeUndefined();
    expect(defaultSettings.alarmEmail).toBeUndefined();
  });

  test('read context strings as the CLI passes them', () => {
    expect(resolveSettings(withContext({
      ...givenThrottles(String),
      stage: 'prod', throttlingRateLimit: '12.5', throttlingBurstLimit: '20', websiteThrottlingRateLimit: '5', websiteThrottlingBurstLimit: '10', corsAllowedOrigins: '["https://a.example"]',
      logRetentionDays: '400', auditRetentionDays: '731', alarmEmail: 'ops@example.com', memorySize: '1024', configCacheTtlSeconds: '0', rejectionRecordsPerMinute: '120',
      crmWebhookUrl: 'https://crm.example/leads', crmWebhookAuthorizationSecret: 'crm/webhook', crmWebhookAuthorizationHeader: 'X-Crm-Token',
      crmWebhookRateLimitPerSecond: '5', eventArchiveDays: '7', callRequestsPerKeyPerMinute: '30', whatsappConversationDays: '0.25',
      silenceCheckMinutes: '5', silenceMinLeads: '3', silenceMinMinutes: '60', silenceQuietHours: 'none', silenceAlarm: 'true',
      retentionSweepHourUtc: '3',
      portalPullMinutes: '2', portalPullOverlapMinutes: '30', portalFailingMinutes: '120', portalPullConcurrency: '8', portalEgress: 'shared', portalUrls: '{"99acres":"https://proxy.example/99"}',
    }))).toEqual({
      ...givenThrottles(Number),
      stage: 'prod', throttlingRateLimit: 12.5, throttlingBurstLimit: 20, websiteThrottlingRateLimit: 5, websiteThrottlingBurstLimit: 10, corsAllowedOrigins: ['https://a.example'],
      logRetentionDays: 400, allowShortLogRetention: false, auditRetentionDays: 731, alarmEmail: 'ops@example.com', memorySize: 1024, configCacheTtlSeconds: 0, rejectionRecordsPerMinute: 120,
      crmWebhookUrl: 'https://crm.example/leads', crmWebhookAuthorizationSecret: 'crm/webhook', crmWebhookAuthorizationHeader: 'X-Crm-Token',
      crmWebhookRateLimitPerSecond: 5, eventArchiveDays: 7, callRequestsPerKeyPerMinute: 30, whatsappConversationDays: 0.25,
      silenceCheckMinutes: 5, silenceMinLeads: 3, silenceMinMinutes: 60, silenceQuietHours: 'none', silenceAlarm: true,
      retentionSweepHourUtc: 3,
      portalPullMinutes: 2, portalPullOverlapMinutes: 30, portalFailingMinutes: 120, portalPullConcurrency: 8, portalEgress: 'shared', portalUrls: { '99acres': 'https://proxy.example/99' },
    });
  });

  test('prefer props over context', () => {
    expect(resolveSettings(withContext({ memorySize: '1024' }), { memorySize: 768 }).memorySize).toBe(768);
  });

  test.each([
    ['stage', 'prod env'], ['memorySize', '100'], ['memorySize', '512.5'], ['logRetentionDays', '10'],
    ['throttlingBurstLimit', 'lots'], ['corsAllowedOrigins', 'https://a.example/path'], ['alarmEmail', 'ops'],
    ['configCacheTtlSeconds', '-1'], ['websiteThrottlingRateLimit', '0'], ['websiteThrottlingBurstLimit', '2.5'],
    ['eventArchiveDays', '0'], ['crmWebhookRateLimitPerSecond', '0'], ['callRequestsPerKeyPerMinute', '0'], ['callRequestsPerKeyPerMinute', '2.5'],
    ['whatsappConversationDays', '0'], ['whatsappConversationDays', '366'],
    ['portalPullMinutes', '0'], ['portalPullConcurrency', '1'], ['portalEgress', 'nat'], ['portalUrls', '{"commonfloor":"https://x.example"}'], ['portalUrls', '{"99acres":"http://x.example"}'],
    ['crmWebhookAuthorizationHeader', 'Bad Header'], ['crmWebhookUrl', 'ftp://crm.example'],
    ['auditRetentionDays', '364'], ['auditRetentionDays', '3651'], ['allowShortLogRetention', 'yes'],
    ['retentionSweepHourUtc', '24'], ['retentionSweepHourUtc', '2.5'],
  ])('refuse an invalid %s (%s) at synth time', (name, value) => {
    expect(() => resolveSettings(withContext({ [name]: value }))).toThrow(name);
  });

  test('refuse logs kept under a year (DPDP Rules 2025) unless allowShortLogRetention says so', () => {
    expect(() => resolveSettings(withContext({ logRetentionDays: '180' }))).toThrow(
      'logRetentionDays 180 is below 365: logs of processing are kept at least a year (DPDP Rules 2025); set allowShortLogRetention=true to keep them shorter anyway',
    );
    expect(resolveSettings(withContext({ logRetentionDays: '30', allowShortLogRetention: 'true' })).logRetentionDays).toBe(30);
    expect(resolveSettings(withContext({ logRetentionDays: 365 })).logRetentionDays).toBe(365);
  });

  test('name the stack after the stage', () => {
    expect(stackNameFor(stageFromContext(withContext({ stage: 'prod' })))).toBe('LeadIntake-prod');
    expect(stackNameFor(stageFromContext(withContext({})))).toBe('LeadIntake-dev');
  });
});
