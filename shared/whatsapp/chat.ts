/**
 * One WhatsApp message, stored once (CONTRACT.md section 15), through the same domain code as every
 * source: the number's connection (cached, guarded in the write), the conversation's claim, then
 * createLead with the message id as its exactly-once claim, or the once-only rejection record
 * (recordRefusal). What the intake pipeline does for every source (shared/intake/types.ts), run here
 * for this one source's deliveries until the pipeline's runner serves it.
 *
 * The conversation decides: its first message stores a lead or a record, taking the conversation's
 * claim in that one write; a later one stores nothing. A message without a referral reads the claim
 * first (one GetItem) and, held, writes nothing; one with a referral goes straight to its write, whose
 * condition on the claim decides. A message to a number no account connected (or one removed) stores
 * nothing. A database outage propagates (503), and Meta's retry stores the message once.
 */
import type { AccountDirectory } from '../domain/account-directory.ts';
import { ConnectionCache, receivedAtOnce } from '../domain/connection-cache.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ClaimHeldError, ClientNotFoundError, FieldValidationError, IdempotencyKeyReusedError, isRejection, LeadErasedError, type LeadIntakeError } from '../domain/errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import type { ConnectionGuard, ConnectionReader, RejectionLog, WriteClaim, WriteClaimReader } from '../domain/ports.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf } from '../domain/submissions.ts';
import type { ConnectionTarget, IntakeSource } from '../intake/types.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import { WHATSAPP_NUMBER_CONNECTION } from './intake-source.ts';
import { whatsappNumberConnectionKey } from './wire-names.ts';
import type { WhatsAppDelivery } from './notification.ts';
import { whatsappWireNames } from './wire-names.ts';

/** A business number connected to an account's project and campaign. */
export interface WhatsAppNumber extends ConnectionTarget {
  readonly phoneNumberId: string;
}

/**
 * Connected numbers, cached per container for the configuration TTL (a warm message spends no round
 * trip on its number). Only connected numbers are cached: one connected a moment ago works at once,
 * and one removed or moved since it was cached is caught by the write's guard (receivedAtOnce).
 */
export class WhatsAppNumberDirectory {
  readonly #reader: ConnectionReader;
  readonly #cache: ConnectionCache<WhatsAppNumber>;

  /** `reader`: the connection store's reader of kind `whatsapp_number`. */
  constructor(reader: ConnectionReader, options: { ttlMs: number; now?: () => number }) {
    this.#reader = reader;
    this.#cache = new ConnectionCache(options);
  }

  async number(phoneNumberId: string): Promise<WhatsAppNumber | undefined> {
    const cached = this.#cache.get(phoneNumberId);
    if (cached) return cached;
    const found = await this.#reader.findConnection(phoneNumberId);
    if (!found) return undefined;
    const number = { phoneNumberId: found.id, accountId: found.accountId, projectId: found.projectId, campaignId: found.campaignId };
    this.#cache.set(phoneNumberId, number);
    return number;
  }

  forget(phoneNumberId: string): void {
    this.#cache.forget(phoneNumberId);
  }
}

export interface ChatDependencies extends CreateLeadDependencies {
  readonly numbers: WhatsAppNumberDirectory;
  readonly directory: AccountDirectory;
  readonly rejections: RejectionLog;
  readonly claims: WriteClaimReader;
}

export type ChatOutcome =
  | { readonly kind: 'created'; readonly lead: LeadRecord; readonly replayed: boolean }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** A system message, or one without an id, a number or a sender: nothing to store. */
  | { readonly kind: 'ignored'; readonly reason: string }
  /** The number is connected to no account (or was removed): logged by its id, counted, nothing stored. */
  | { readonly kind: 'not_connected' }
  /** A later message of an open conversation, or its first one again: its conversation decided already. */
  | { readonly kind: 'conversation_open' }
  /** An earlier delivery of this message id decided already (a lead, a record, or an erased lead). */
  | { readonly kind: 'already_decided' };

/** What a message's log line names: its account when known. */
export interface ChatProgress {
  accountId?: string;
  fields?: ValidatedFields;
}

const { name: ENDPOINT, platformId } = whatsappWireNames;

const guardOf = (number: WhatsAppNumber): ConnectionGuard => ({ kind: WHATSAPP_NUMBER_CONNECTION, shape: whatsappNumberConnectionKey.shape, id: number.phoneNumberId, accountId: number.accountId, projectId: number.projectId, campaignId: number.campaignId });

/** The message on its number as it is now, whatever the cache (CONTRACT.md section 14): removed, as never connected; moved, its lead in the new project. */
export const receiveChatMessage = async (
  source: IntakeSource<WhatsAppDelivery>,
  delivery: WhatsAppDelivery,
  requestId: string,
  deps: ChatDependencies,
  progress: ChatProgress = {},
): Promise<ChatOutcome> => {
  if (delivery.ignored !== undefined) return { kind: 'ignored', reason: delivery.ignored };
  const phoneNumberId = delivery.phoneNumberId!;
  return receivedAtOnce(
    async () => {
      const number = await deps.numbers.number(phoneNumberId);
      if (!number) return { kind: 'not_connected' } as const;
      progress.accountId = number.accountId;
      return receiveOnNumber(source, delivery, number, requestId, deps, progress);
    },
    () => deps.numbers.forget(phoneNumberId),
  );
};

const receiveOnNumber = async (
  source: IntakeSource<WhatsAppDelivery>,
  delivery: WhatsAppDelivery,
  number: WhatsAppNumber,
  requestId: string,
  deps: ChatDependencies,
  progress: ChatProgress,
): Promise<ChatOutcome> => {
  const { accountId } = number;
  const claims = (delivery.claims ?? []).map((claim): WriteClaim => ({ key: claim.key, party: claim.party!, at: claim.at, until: claim.until, ...(claim.value !== undefined && { value: claim.value }) }));
  // A later message of an open conversation costs this one read, and writes nothing.
  if (delivery.decidedWhileClaimHeld && claims[0] && (await deps.claims.isHeld(accountId, claims[0]))) return { kind: 'conversation_open' };

  const guard = guardOf(number);
  const qualifiers = delivery.platformId?.qualifiers ?? {};
  const claim = platformLeadIdempotency(platformId.idempotencyPrefix, ENDPOINT, [...Object.values(qualifiers), delivery.messageId!].join('\n'));
  const fields = delivery.fields(number);
  try {
    if (delivery.refusal) throw delivery.refusal;
    progress.fields = source.lead.validate(fields, delivery);
    const account = await deps.directory.account(accountId);
    const { lead, replayed } = await createLead(source.lead.submission(progress.fields, delivery), account, deps, { idempotency: claim, guard, claims });
    return { kind: 'created', lead, replayed };
  } catch (error) {
    // Another message of the conversation took its claim first: that one decided.
    if (error instanceof ClaimHeldError) return { kind: 'conversation_open' };
    // The message's first delivery was kept as a record, or its lead was erased (CONTRACT.md section 12): nothing stored again.
    if (error instanceof IdempotencyKeyReusedError || error instanceof LeadErasedError) return { kind: 'already_decided' };
    // The number's account is gone: the number is connected to no account.
    if (error instanceof ClientNotFoundError) return { kind: 'not_connected' };
    if (!isRejection(error)) throw error;
    return refuse(error, delivery, number, { requestId, fields, progress }, deps, { claim, guard, claims });
  }
};

const refuse = async (
  error: LeadIntakeError,
  delivery: WhatsAppDelivery,
  number: WhatsAppNumber,
  { requestId, fields, progress }: { readonly requestId: string; readonly fields: Readonly<Record<string, unknown>>; readonly progress: ChatProgress },
  deps: ChatDependencies,
  write: { readonly claim: ReturnType<typeof platformLeadIdempotency>; readonly guard: ConnectionGuard; readonly claims: readonly WriteClaim[] },
): Promise<ChatOutcome> => {
  const reason = error instanceof FieldValidationError ? 'validation' : error.reason;
  const ids: Record<string, string> = { ...delivery.platformId?.qualifiers, [platformId.field]: delivery.messageId! };
  const withheld = delivery.refusalFields?.whatsapp_user_id;
  const rejection = rejectionOf(
    ENDPOINT,
    {
      reason,
      message: error.message,
      fields: delivery.refusalFields ?? refusedFields(error, progress.fields ?? {}) ?? {},
      platformIds: { ...ids, ...(typeof withheld === 'string' && { whatsapp_user_id: withheld }) },
    },
    // The record's person (access and erasure): the sender's mobile, when it is one (a foreign number names no one).
    { requestId, body: fields, ...(progress.fields && { fields: progress.fields }) },
  );
  const kept = await recordRefusal(deps.rejections, number.accountId, rejection, write.claim, write.guard, write.claims);
  return kept === 'recorded' ? { kind: 'rejected', reason } : { kind: 'already_decided' };
};
