/**
 * One JSON line per request. Keys never reach a log line, and no part of a person's mobile number or
 * e-mail does (CONTRACT.md section 14: no last digits, no domain), since an erasure cannot reach logs:
 * a line names the lead id, or the request id its rejection record keeps, and access and erasure find
 * the person from there. A line that had to tell two people apart would carry a keyed hash
 * (shared/domain/person-data.ts PersonKeyring), never the details.
 */

import { SERVICE_NAME } from './metric-names.ts';

export type LogSink = (line: Readonly<Record<string, unknown>>) => void;

/** A rejection record's trace of the mobile it was refused with (the record is erased with the person; never a log line). */
export const maskMobile = (mobile: string): string => `******${mobile.slice(-4)}`;

/**
 * Removes whatever looks like a phone number or an e-mail address from free text (an error message),
 * whole, for the rare log line that carries text the service did not write itself.
 */
export const redact = (text: string): string =>
  // An address has a local part and a dotted domain: a path such as node_modules/@smithy/... in a stack is not one.
  text.replace(/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g, '[e-mail]').replace(PHONE_LIKE, '[number]');

/**
 * A run of ten or more of the characters section 2 allows in a mobile (any script's digits, space,
 * `+ - ( ) .`), from a digit to a digit, with a leading `+` or `(` and a closing `)`: `98765 43210`,
 * `+91-98765-43210`, `(+91) 98765.43210`, `+९१ ९८७६५ ४३२१०` are each one. Dates and dotted addresses
 * that long go too: a log line loses a detail rather than keep a number.
 */
const PHONE_LIKE = /[+(]?\p{Nd}[\p{Nd}\s+().-]{8,}\p{Nd}\)?/gu;

/** Powertools Logger's levels and their numbers: a line is written when its level is at or above the setting. */
export const LOG_LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
export type LogLevel = keyof typeof LOG_LEVELS;

export interface LogSettings {
  /** Lines below this level are dropped, unless the request is sampled. */
  readonly level: LogLevel;
  /** Share of requests (0..1) whose lines are written whatever the level, as Powertools' debug sampling does. */
  readonly sampleRate: number;
}

const levelOf = (value: string | undefined): LogLevel | undefined => {
  const name = value?.trim().toUpperCase();
  // Lambda's advanced logging controls say FATAL where Powertools says CRITICAL.
  const level = name === 'FATAL' ? 'CRITICAL' : name;
  return level !== undefined && level in LOG_LEVELS ? (level as LogLevel) : undefined;
};

/**
 * The knobs operators know from Powertools Logger, read the way it reads them: the level from
 * AWS_LAMBDA_LOG_LEVEL (set by Lambda's advanced logging controls, which win because Lambda drops
 * anything below it anyway), else POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, else INFO; the debug sampling
 * rate from POWERTOOLS_LOGGER_SAMPLE_RATE (0 when unset or outside 0..1).
 */
export const logSettingsFromEnvironment = (env: NodeJS.ProcessEnv = process.env): LogSettings => {
  const rate = Number(env.POWERTOOLS_LOGGER_SAMPLE_RATE ?? 0);
  return {
    level: levelOf(env.AWS_LAMBDA_LOG_LEVEL) ?? levelOf(env.POWERTOOLS_LOG_LEVEL) ?? levelOf(env.LOG_LEVEL) ?? 'INFO',
    sampleRate: Number.isFinite(rate) && rate >= 0 && rate <= 1 ? rate : 0,
  };
};

export interface LogLineParts {
  readonly write?: (text: string) => void;
  readonly now?: () => Date;
  /** The line's `message` when it names none. */
  readonly message?: string;
  readonly settings?: LogSettings;
  /** The sampling draw, 0..1 (Math.random; fixed in tests). */
  readonly random?: () => number;
  /** Lambda's AWS_LAMBDA_FUNCTION_NAME, for the line's function_name. */
  readonly functionName?: string;
}

/**
 * Turns a request's line into its JSON text, shaped like Powertools Logger's (level, message,
 * timestamp, service, cold_start, function_name, sampling_rate, X-Ray trace id, correlation_id), or
 * into nothing when the settings drop it. The container's first request says cold_start: true (on
 * its line, if that line is written).
 */
export const logLineFormatter = ({
  now = () => new Date(),
  message: fallback = 'lead request',
  settings = logSettingsFromEnvironment(),
  random = Math.random,
  functionName = process.env.AWS_LAMBDA_FUNCTION_NAME,
}: Omit<LogLineParts, 'write'> = {}) => {
  let coldStart = true;
  const threshold = LOG_LEVELS[settings.level];
  return (line: Readonly<Record<string, unknown>>): string | undefined => {
    const { level = 'info', message = fallback, ...attributes } = line;
    const name = levelOf(String(level)) ?? 'INFO';
    // One line per request, so drawing per line is drawing per request, as Powertools does per invocation.
    const sampled = settings.sampleRate > 0 && random() < settings.sampleRate;
    const wasCold = coldStart;
    coldStart = false;
    if (LOG_LEVELS[name] < threshold && !sampled) return undefined;
    const traceId = process.env._X_AMZN_TRACE_ID;
    return JSON.stringify({
      level: name,
      message,
      timestamp: now().toISOString(),
      service: SERVICE_NAME,
      cold_start: wasCold,
      ...(functionName && { function_name: functionName }),
      ...(settings.sampleRate > 0 && { sampling_rate: settings.sampleRate }),
      ...(traceId && { xray_trace_id: traceId.split(';')[0]?.replace('Root=', '') }),
      // The request's id (API Gateway's, answered as x-request-id) under Powertools' name for it.
      ...(typeof attributes.requestId === 'string' && { correlation_id: attributes.requestId }),
      ...attributes,
    });
  };
};

/**
 * The request's log line alone: the admin function's sink, and the first half of the lead functions'
 * (telemetry.ts adds the metrics), without Powertools Logger in the bundle (docs/decisions/0006).
 */
export const logLineSink = ({ write = (text) => void process.stdout.write(`${text}\n`), ...parts }: LogLineParts = {}): LogSink => {
  const format = logLineFormatter(parts);
  return (line) => {
    const text = format(line);
    if (text !== undefined) write(text);
  };
};
