/**
 * The steps that run a source's declared authentication and body (IntakeSource `authentication`,
 * `bodyFormat`), one function each, so that a function's bundle carries only the one its source
 * declares (a chosen-at-run-time switch would carry them all). Each takes only a source declared as
 * it runs (DeclaredAs, checked by the compiler): the declaration stays the one truth.
 */
import { BodyNotAnObjectError, PayloadTooLargeError, type LeadIntakeError } from '../domain/errors.ts';
import { header, httpMethod, type Authenticated, type LeadContext, type WithBody } from '../http/lambda.ts';
import { andThen, step, type LeadStep } from '../http/lead-chain.ts';
import { apiKeyAccount } from '../http/middleware/api-key-account.ts';
import { jsonObjectBody, jsonObjectOf } from '../http/middleware/json-object-body.ts';
import { keyScope, scopedApiKey } from '../http/middleware/key-scope.ts';
import type { AccountDirectory } from '../domain/account-directory.ts';
import type { IntakeAuthentication, IntakeBodyFormat, IntakeSource } from './types.ts';

/**
 * A source declared so: its authentication of that kind, its body of that format. A step takes only a
 * source declared as it runs, checked by the compiler (no check left in a bundle).
 */
export type DeclaredAs<A extends IntakeAuthentication['kind'], B extends IntakeBodyFormat = IntakeBodyFormat> = Pick<
  IntakeSource<any, any>,
  'name' | 'maxBodyBytes'
> & { readonly authentication: Extract<IntakeAuthentication, { kind: A }>; readonly bodyFormat: B };

/** `api-key`: the key in `x-api-key` (401, 404), then what it allows (403), before the body. */
export const apiKeyAuthentication = (source: DeclaredAs<'api-key'>, directory: AccountDirectory): LeadStep<LeadContext, Authenticated> =>
  andThen(apiKeyAccount(directory), keyScope(source.authentication.endpoint));

/** `scoped-api-key`: the key in `x-api-key` or its query parameter (401, 404), then its scope alone (403), before the body. */
export const scopedKeyAuthentication = (source: DeclaredAs<'scoped-api-key'>, directory: AccountDirectory): LeadStep<LeadContext, Authenticated> =>
  scopedApiKey(directory, source.authentication.scope);

/** `connection-key` (checked with its connection, intake.ts) and `platform-signature` (with its body, below): nothing before the body. */
export const noKeyBeforeBody = (_source: DeclaredAs<'connection-key' | 'platform-signature'>): LeadStep<LeadContext, object> => step<LeadContext>();

/** 64 KiB: a body of exactly 65,536 bytes is read (CONTRACT.md section 1). */
export const MAX_BODY_BYTES = 65_536;

const maxBytesOf = (source: Pick<IntakeSource<any, any>, 'maxBodyBytes'>) => source.maxBodyBytes ?? MAX_BODY_BYTES;

/** `json`: size (413), Content-Type (415), JSON (400), an object (400). */
export const jsonBody = (source: DeclaredAs<IntakeAuthentication['kind'], 'json'>): LeadStep<LeadContext, WithBody> => jsonObjectBody({ maxBytes: maxBytesOf(source) });

/** `parameters`: the source's reader reads the request itself (a telephony provider's query, form or JSON). */
export const bodyReadByTheSource = (_source: DeclaredAs<IntakeAuthentication['kind'], 'parameters'>): LeadStep<LeadContext, object> => step<LeadContext>();

/** A platform's signature of the raw body (`platform-signature`): its check, and the refusal of a bad one. */
export interface SignatureCheck {
  /** The header the signature travels in (`x-hub-signature-256`). */
  readonly header: string;
  readonly verify: (rawBody: Buffer, signature: string | undefined) => Promise<boolean>;
  readonly refusal: () => LeadIntakeError;
}

/** `signed-json`: size (413), then the platform's signature of the raw bytes (401, nothing read), then JSON (400). */
export const signedJsonBody = (source: DeclaredAs<'platform-signature', 'signed-json'>, signature: SignatureCheck): LeadStep<LeadContext, WithBody> => {
  const maxBytes = maxBytesOf(source);
  return step<LeadContext, WithBody>({
    before: async ({ event, context }) => {
      const raw = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (raw.length > maxBytes) throw new PayloadTooLargeError();
      if (!(await signature.verify(raw, header(event, signature.header)))) throw signature.refusal();
      context.body = signedObjectOf(raw);
    },
  });
};

/**
 * A signed body as its reader reads it: JSON that is not an object is the platform's all the same (its
 * signature says so), and holds nothing the reader knows, so it is read as an empty notification
 * (acknowledged, nothing stored: CONTRACT.md section 15) rather than refused. Text that is not JSON: 400.
 */
const signedObjectOf = (raw: Buffer): Record<string, unknown> => {
  try {
    return jsonObjectOf(raw);
  } catch (error) {
    if (error instanceof BodyNotAnObjectError) return {};
    throw error;
  }
};

/**
 * A platform's subscription check on GET (Meta's `hub.mode=subscribe&hub.verify_token=T&hub.challenge=C`),
 * answered before anything else: the text `subscribe` gives, as `text/plain`, or the refusal it throws.
 * A POST goes on to the source's other steps.
 */
export const platformSubscription = (_source: DeclaredAs<'platform-signature'>, subscribe: (query: URLSearchParams) => Promise<string>): LeadStep<LeadContext, object> =>
  step<LeadContext>({
    before: async ({ event, context }) => {
      if (httpMethod(event) !== 'GET') return undefined;
      const challenge = await subscribe(new URLSearchParams(event.rawQueryString ?? ''));
      context.outcome = 'verified';
      return { statusCode: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: challenge };
    },
  });
