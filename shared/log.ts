/**
 * One JSON line per request. Keys never reach a log line; mobile numbers keep their last 4 digits
 * and e-mails their first letter and domain, so a support engineer can match a complaint without
 * the log holding the lead's contact details.
 */

import { SERVICE_NAME } from './metric-names.ts';

export type LogSink = (line: Readonly<Record<string, unknown>>) => void;

export const maskMobile = (mobile: string): string => `******${mobile.slice(-4)}`;

export const maskEmail = (email: string): string => {
  const at = email.lastIndexOf('@');
  return at < 1 ? '***' : `${email[0]}***${email.slice(at)}`;
};

/**
 * Masks what looks like a phone number or an e-mail address inside free text (an error message),
 * for the rare log line that carries text the service did not write itself.
 */
export const redact = (text: string): string =>
  text
    .replace(/[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+/g, (email) => maskEmail(email))
    .replace(/\d[\d\s-]{8,}\d/g, (digits) => maskMobile(digits.replace(/\D/g, '')));

export interface LogLineParts {
  readonly write?: (text: string) => void;
  readonly now?: () => Date;
  /** The line's `message` when it names none. */
  readonly message?: string;
}

/**
 * The request's log line alone, shaped like Powertools Logger's (level, message, timestamp, service,
 * X-Ray trace id): the admin function's sink, and the first half of the lead functions' (telemetry.ts
 * adds the metrics), without the metrics library in the bundle.
 */
export const logLineSink = ({ write = (text) => void process.stdout.write(`${text}\n`), now = () => new Date(), message: fallback = 'lead request' }: LogLineParts = {}): LogSink => (line) => {
  const { level = 'info', message = fallback, ...attributes } = line;
  const traceId = process.env._X_AMZN_TRACE_ID;
  write(
    JSON.stringify({
      level: String(level).toUpperCase(),
      message,
      timestamp: now().toISOString(),
      service: SERVICE_NAME,
      ...(traceId && { xray_trace_id: traceId.split(';')[0]?.replace('Root=', '') }),
      ...attributes,
    }),
  );
};
