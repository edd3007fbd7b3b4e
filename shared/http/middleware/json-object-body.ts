import {
  BodyNotAnObjectError,
  FieldValidationError,
  MalformedJsonBodyError,
  PayloadTooLargeError,
  UnsupportedContentTypeError,
} from '../../domain/errors.ts';
import { JsonNumber } from '../../schemas/json-number.ts';
import { step, type LeadStep } from '../lead-chain.ts';
import { header, type LeadContext, type LeadEvent, type WithBody } from '../lambda.ts';

export interface JsonObjectBodyOptions {
  /** Largest body read, in bytes; one byte more answers 413. */
  readonly maxBytes: number;
}

export const JSON_CONTENT_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const utf8 = new TextDecoder('utf-8', { fatal: true });
/**
 * Deepest nesting of objects and arrays read. A lead is flat; without a bound, a body nested a few
 * thousand levels deep (well under 64 KiB) overflowed the parser's stack, so whether it was answered
 * 400 or read as an object depended on how deep the process's stack already was: the same body could
 * get two answers. Deeper than this is answered as malformed, always.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Reads the body as the contract orders it: size (413), then Content-Type (415), then JSON (400),
 * then "is it an object" (400). Written here rather than with @middy/http-json-body-parser because
 * the contract needs what that parser cannot give: numbers kept as they were written (its reviver
 * loses JSON.parse's source text, so `9.87654321e9` could not be refused), a missing Content-Type
 * accepted, and 400 rather than 422 for malformed JSON.
 */
export const jsonObjectBody = <In extends LeadContext = LeadContext>({ maxBytes }: JsonObjectBodyOptions): LeadStep<In, WithBody> =>
  step<In, WithBody>({
    before: (request) => {
      request.context.body = jsonObjectBodyOf(request.event, maxBytes);
    },
  });

/** The request's body as a JSON object, in the contract's order of checks (above). */
export const jsonObjectBodyOf = (event: LeadEvent, maxBytes: number): Record<string, unknown> => {
  const bytes = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > maxBytes) throw new PayloadTooLargeError();

  const contentType = header(event, 'content-type')?.trim();
  if (contentType && !JSON_CONTENT_TYPE.test(contentType)) throw new UnsupportedContentTypeError();

  return jsonObjectOf(bytes);
};

/**
 * A body's bytes as a JSON object (400 when it is not UTF-8 JSON, or not an object), its numbers kept
 * as written (JsonNumber). Shared by every body that may be JSON (the call webhook's too).
 */
export const jsonObjectOf = (bytes: Buffer): Record<string, unknown> => {
  const forbidden = new Set<string>();
  let body: unknown;
  try {
    const text = utf8.decode(bytes);
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw new MalformedJsonBodyError();
    body = JSON.parse(text, (key, value, context?: { source?: string }) => {
      if (FORBIDDEN_KEYS.has(key)) forbidden.add(key);
      return typeof value === 'number' ? new JsonNumber(context?.source ?? String(value)) : value;
    });
  } catch {
    throw new MalformedJsonBodyError();
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof JsonNumber) throw new BodyNotAnObjectError();
  // JSON.parse makes `__proto__` an own property, never the prototype; refusing such keys anyway
  // keeps them away from any code that might later copy the body by assignment.
  if (forbidden.size > 0) {
    throw new FieldValidationError(Object.fromEntries([...forbidden].map((key) => [key, [`${key} is not an allowed field name`]])));
  }
  return body as Record<string, unknown>;
};

/** Whether the brackets of `text` (outside strings) nest deeper than `limit`: one pass, no parse. */
const nestedDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if ((depth += 1) > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth -= 1;
  }
  return false;
};
