/**
 * A call notification's parameters, however the provider sends them (CONTRACT.md section 13): the
 * query string, a form-encoded body or a JSON object body, read alike as texts, a body member winning
 * over a query parameter of the same name. Section 1's limits hold for the body: 413 over 64 KiB, 415
 * for any other content type, 400 for a body that cannot be read. The query's `key` (the API key of a
 * provider that cannot set headers) is never a parameter: it is read by the key check alone.
 */
import { MalformedJsonBodyError, PayloadTooLargeError, UnsupportedContentTypeError } from '../domain/errors.ts';
import { header, type LeadEvent } from '../http/lambda.ts';
import { JSON_CONTENT_TYPE, jsonObjectOf } from '../http/middleware/json-object-body.ts';
import { JsonNumber } from '../schemas/json-number.ts';
import type { CallParameters } from './delivery.ts';
import { callsWireNames } from './wire-names.ts';

const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** The query parameter that may carry the API key (its descriptor's): never kept as a call parameter. */
export const QUERY_KEY_PARAMETER = callsWireNames.keyScope.queryParameter;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface CallParameterOptions {
  readonly maxBytes: number;
  /** A provider that posts its JSON object as one form field (providers.ts `jsonFormField`). */
  readonly jsonFormField?: string;
}

/** The request's parameters; throws section 1's 413, 415 and 400 refusals for a body it cannot read. */
export const callParametersOf = (event: LeadEvent, { maxBytes, jsonFormField }: CallParameterOptions): CallParameters => {
  const bytes = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > maxBytes) throw new PayloadTooLargeError();
  const contentType = header(event, 'content-type')?.trim();
  const form = contentType !== undefined && contentType !== '' && FORM_CONTENT_TYPE.test(contentType);
  if (contentType && !form && !JSON_CONTENT_TYPE.test(contentType)) throw new UnsupportedContentTypeError();

  const parameters: Record<string, string> = Object.create(null);
  addForm(parameters, event.rawQueryString ?? '');
  // No body at all (Exotel's GET, a POST with the query alone): the query is the whole notification.
  if (bytes.length === 0) return withoutKey(parameters);
  if (form) {
    const text = decoded(bytes);
    const members = new URLSearchParams(text);
    addForm(parameters, text);
    const wrapped = jsonFormField === undefined ? undefined : members.get(jsonFormField);
    if (wrapped != null && wrapped.trim() !== '') addJson(parameters, jsonObjectOf(Buffer.from(wrapped, 'utf8')));
  } else {
    addJson(parameters, jsonObjectOf(bytes));
  }
  return withoutKey(parameters);
};

/** Later sources overwrite earlier ones: the body's members win over the query's. Within one source, the first of a repeated name wins. */
const addForm = (into: Record<string, string>, text: string) => {
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (seen.has(name)) continue;
    seen.add(name);
    into[name] = value;
  }
};

/** JSON members as texts: strings as sent, numbers as written, booleans as words; null, objects and arrays are not parameters. */
const addJson = (into: Record<string, string>, body: Readonly<Record<string, unknown>>) => {
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string') into[name] = value;
    else if (value instanceof JsonNumber) into[name] = value.source;
    else if (typeof value === 'boolean') into[name] = String(value);
  }
};

const decoded = (bytes: Buffer): string => {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MalformedJsonBodyError();
  }
};

const withoutKey = (parameters: Record<string, string>): CallParameters => {
  delete parameters[QUERY_KEY_PARAMETER];
  return { ...parameters };
};
