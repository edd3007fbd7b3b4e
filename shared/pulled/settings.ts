/**
 * The pull's settings and parts as a process reads them from its environment (the stack's function,
 * the admin CLI's `pull-portal`, npm start): the overlap and failing minutes, each portal's base URL,
 * the credential's cipher and where its events go.
 */
import { sealedSecretCipherFromEnvironment } from '../kms-sealed-secrets.ts';
import { portalEventBus, portalEventWebhook } from './bus.ts';
import { portalCredentialScope } from './logins.ts';
import type { PortalEventPublisher, PullSettings } from './pull.ts';
import { pullSettings } from './wire-names.ts';

const number = (env: NodeJS.ProcessEnv, setting: { readonly environment: string; readonly default: number; readonly min: number; readonly max: number }): number => {
  const text = env[setting.environment];
  if (text === undefined || text.trim() === '') return setting.default;
  const value = Number(text);
  if (!Number.isFinite(value) || value < setting.min || value > setting.max) throw new Error(`${setting.environment} must be a number from ${setting.min} to ${setting.max}, not ${JSON.stringify(text)}`);
  return value;
};

export const pullSettingsFromEnvironment = (env: NodeJS.ProcessEnv): PullSettings & { readonly concurrency: number } => ({
  overlapMinutes: number(env, pullSettings.overlapMinutes),
  failingMinutes: number(env, pullSettings.failingMinutes),
  concurrency: number(env, pullSettings.concurrency),
});

/** The credential's cipher: the stack's KMS key when configured, the local key otherwise (never inside Lambda). */
export const portalCredentialCipher = (env: NodeJS.ProcessEnv) => sealedSecretCipherFromEnvironment(env, portalCredentialScope);

/** The bus (LEAD_EVENTS_BUS_NAME), the local webhook (LEAD_EVENTS_WEBHOOK_URL), or, with neither, a line on standard error. */
export const portalEventsFromEnvironment = (env: NodeJS.ProcessEnv, write: (line: string) => void = (line) => process.stderr.write(line)): PortalEventPublisher => {
  if (env.LEAD_EVENTS_BUS_NAME) return portalEventBus(env.LEAD_EVENTS_BUS_NAME);
  if (env.LEAD_EVENTS_WEBHOOK_URL) return portalEventWebhook(env.LEAD_EVENTS_WEBHOOK_URL);
  return { publish: async (event) => write(`portal events: ${JSON.stringify({ 'detail-type': event.detailType, detail: event.detail })}\n`) };
};
