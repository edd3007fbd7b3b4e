/**
 * What an admin operation's OpenAPI documentation is made of (scripts/openapi/admin.ts): the core
 * operations' and each lead source's own (its `openapi` module's `openApiAdminOperations()`).
 */
import { AccountNotFoundError, type LeadIntakeError } from '../domain/errors.ts';
import { ID_MAX } from '../domain/account-admin.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What an admin operation takes and answers: scripts/openapi/admin.ts makes its path item of it. */
export interface AdminOperationDoc {
  readonly summary: string;
  readonly description: string;
  /** The name of its body's schema, among the components' schemas. */
  readonly body?: string;
  readonly query?: JsonObject[];
  readonly badRequest?: string[];
  readonly answers: JsonObject;
  readonly notFound: string[];
  readonly conflict?: string | readonly string[];
  /** It returns or erases a person's data: it writes an audit entry first, and answers 503 when it cannot (CONTRACT.md section 18). */
  readonly audited?: true;
}

export const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const message = (Refusal: new () => LeadIntakeError) => new Refusal().message;

export const text = (max: number, description: string): JsonObject => ({ type: 'string', minLength: 1, maxLength: max, description });

export const failure = (description: string, messages: readonly string[]): JsonObject => ({
  description,
  headers: { 'x-request-id': { $ref: '#/components/headers/XRequestId' } },
  content: {
    'application/json': {
      schema: ref('AdminFailure'),
      examples: Object.fromEntries(messages.map((text, i) => [`m${i + 1}`, { summary: text, value: { status: false, message: text } }])),
    },
  },
});

export const success = (status: string, description: string, schema?: JsonObject): JsonObject => ({
  [status]: {
    description,
    headers: { 'x-request-id': { $ref: '#/components/headers/XRequestId' } },
    ...(schema && { content: { 'application/json': { schema } } }),
  },
});

export const accountMissing = message(AccountNotFoundError);

/** The body that connects something a source's deliveries name (a form, a number) to a project and campaign. */
export const connectionTargetBody = (): JsonObject => ({
  type: 'object',
  additionalProperties: false,
  required: ['projectId', 'campaignId'],
  properties: {
    projectId: text(ID_MAX, 'An active project of the account.'),
    campaignId: text(ID_MAX, 'An active campaign of that project.'),
  },
});
