/**
 * One JSON line per request. Keys never reach a log line; mobile numbers keep their last 4 digits
 * and e-mails their first letter and domain, so a support engineer can match a complaint without
 * the log holding the lead's contact details.
 */

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
