/**
 * Meta Lead Ads (CONTRACT.md section 8): the webhook's refusals, and why a leadgen change could not
 * become a lead. Reasons are what `admin rejections` shows; senders (Meta) never see the 422s.
 */
import { LeadIntakeError, refusal } from '../domain/errors.ts';

// The Meta app's refusals, shared with every source it signs (shared/meta-app.ts).
export { InvalidSignatureError, WebhookVerificationFailedError } from '../meta-app.ts';

export class MetaFormNotMappedError extends refusal(422, 'meta_form_not_mapped', 'Meta lead form is not mapped to a project and campaign') {}
export class MetaTokenRefusedError extends refusal(422, 'meta_token_refused', 'Meta refused the page access token (OAuth error 190): connect the page again') {}
export class MetaGraphReadFailedError extends refusal(422, 'meta_graph_read_failed', 'The lead could not be read from the Graph API') {}

/** How a Graph API read failed: what decides whether it is tried again. */
export type GraphFailureKind =
  /** OAuth error 190: the page token is expired or revoked. Never retried. */
  | 'token_refused'
  /** Network errors, timeouts, 5xx and rate limits: retried with back-off. */
  | 'transient'
  /** Any other Graph error (a deleted lead, a missing permission): not retried. */
  | 'refused';

/**
 * A Graph API read that failed. It carries the HTTP status and Graph's error code and type, never
 * Graph's message or the request URL: either may echo the access token.
 */
export class GraphReadError extends Error {
  readonly kind: GraphFailureKind;
  readonly status?: number;
  readonly code?: number;
  readonly subcode?: number;
  readonly type?: string;

  constructor(kind: GraphFailureKind, details: { status?: number; code?: number; subcode?: number; type?: string; network?: string } = {}) {
    const { network, ...rest } = details;
    super(`Graph API read failed (${kind}${rest.status ? `, HTTP ${rest.status}` : ''}${rest.code !== undefined ? `, code ${rest.code}` : ''}${network ? `, ${network}` : ''})`);
    this.name = 'GraphReadError';
    this.kind = kind;
    Object.assign(this, rest);
  }

  /** What a rejection record keeps of the failure. */
  get summary(): Record<string, string | number> {
    return {
      ...(this.status !== undefined && { graph_status: this.status }),
      ...(this.code !== undefined && { graph_code: this.code }),
      ...(this.subcode !== undefined && { graph_subcode: this.subcode }),
      ...(this.type !== undefined && { graph_type: this.type }),
    };
  }
}

export { isRejection } from '../domain/errors.ts';
