/**
 * The quiet-source watch's settings as the environment carries them (CONTRACT.md section 16): the
 * stack's `silence*` settings in Lambda, npm start's SILENCE_* variables locally. Apart from the
 * watch's wiring (shared/source-watch.ts), so the admin function reads them without the bus's client.
 */
import { defaultSilenceSettings, parseQuietHours, type SilenceSettings } from './domain/source-watch.ts';
import type { ChannelConnectionFields } from './dynamodb/lead-stream.ts';

/** The environment the watch reads: the same names under npm start and in Lambda. */
export const sourceWatchSettings = {
  minLeads: 'SILENCE_MIN_LEADS',
  minMinutes: 'SILENCE_MIN_MINUTES',
  quietHours: 'SILENCE_QUIET_HOURS',
  /** JSON: lead source to the lead attributes naming its connection (registry.ts `channelConnectionFields`). */
  connectionFields: 'LEAD_CHANNEL_CONNECTION_FIELDS',
  /** The bus of section 9 (Lambda only; npm start delivers to its local webhook). */
  busName: 'LEAD_EVENTS_BUS_NAME',
} as const;

/** The metric of silent channels, per account and over all (`Service`), which the optional alarm reads. */
export const SILENT_CHANNELS_METRIC = 'SilentChannels';

const wholeNumber = (name: string, value: string | undefined, fallback: number, min: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number from ${min}; got ${JSON.stringify(value)}`);
  return n;
};

/** Minutes above 0: a fraction (`0.1`, six seconds) lets a local run or a test see a silence without waiting minutes. */
const minutes = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a number of minutes above 0; got ${JSON.stringify(value)}`);
  return n;
};

/** The watch's settings; the contract's defaults for those unset; a malformed one throws, naming it. */
export const silenceSettingsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): SilenceSettings => ({
  minLeads: wholeNumber(sourceWatchSettings.minLeads, env[sourceWatchSettings.minLeads], defaultSilenceSettings.minLeads, 2),
  minMinutes: minutes(sourceWatchSettings.minMinutes, env[sourceWatchSettings.minMinutes], defaultSilenceSettings.minMinutes),
  quietHours: parseQuietHours(env[sourceWatchSettings.quietHours] || defaultSilenceSettings.quietHours),
});

export const connectionFieldsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): ChannelConnectionFields => {
  const text = env[sourceWatchSettings.connectionFields];
  return text ? (JSON.parse(text) as ChannelConnectionFields) : {};
};

