/**
 * The one intake (issue 33): what every source's deliveries go through once they are read, written
 * once. Each delivery, in the order its request sent them: ignored when its source says so; its
 * connection looked up (ConnectionDirectory) and guarded in its write; refused before validation when
 * its source says so; validated and made a lead (createLead with its platform id as the idempotency
 * claim), or, refused, a rejection record kept once per platform id (recordRefusal: `recordOnce`), so one
 * platform id stores at most one lead or one record (CONTRACT.md section 14). A write refused because
 * the connection changed since it was read stored nothing: the delivery runs again on a fresh read
 * (receivedAtOnce), so a removed or moved connection takes effect at once whatever the cache.
 *
 * Nothing here knows HTTP or a source: the handler (handler.ts) authenticates and reads the request.
 */
import type { AccountView } from '../domain/account-directory.ts';
import type { AccountDirectory } from '../domain/account-directory.ts';
import { receivedAtOnce } from '../domain/connection-cache.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ClaimHeldError, ClientNotFoundError, FieldValidationError, IdempotencyKeyReusedError, isRejection, LeadErasedError, type LeadIntakeError } from '../domain/errors.ts';
import { platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import type { Connection, ConnectionGuard } from '../domain/ports/connections.ts';
import type { IdempotencyClaim } from '../domain/ports/leads.ts';
import type { RejectionLog } from '../domain/ports/rejections.ts';
import { refusedFields } from '../domain/rejections.ts';
import { rejectionOf } from '../domain/submissions.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import type { ConnectionLookup } from './connection-directory.ts';
import type { Delivery, DeliveryOutcome, IntakeRequest, IntakeSource } from './types.ts';

export interface IntakeDependencies extends CreateLeadDependencies {
  readonly directory: AccountDirectory;
  readonly rejections: RejectionLog;
  /** The connections of the source's declared kind; required when it declares one. */
  readonly connections?: ConnectionLookup;
  /**
   * Where deliveries carry claims (types.ts DeliveryClaim): their read before the write (delivery-claims.ts
   * claimCheckOf, `decidedWhileClaimHeld`), given with stores whose writes take them.
   */
  readonly claims?: DeliveryClaimCheck;
}

/** Throws ClaimHeldError when the delivery is decided by its claim's holder already (delivery-claims.ts). */
export type DeliveryClaimCheck = (accountId: string, delivery: Delivery) => Promise<void>;

/**
 * The account a request's key authenticated, when it has one (its deliveries' account then), and the
 * account its deliveries were received for, noted for the request's log line (a connection's, when
 * no key named one): the request's context.
 */
export interface IntakeCaller {
  readonly account?: AccountView | undefined;
  accountId?: string | undefined;
}

/**
 * Receives a request's deliveries one after another, in order, each on its own; resolves once every
 * one was stored, recorded or ignored. The source's admission (a per-key bound) runs once, before the
 * first delivery that goes on to a write.
 */
export const receiveDeliveries = async <D extends Delivery, Route>(
  source: IntakeSource<D, Route>,
  deps: IntakeDependencies,
  request: IntakeRequest<Route>,
  caller: IntakeCaller,
  deliveries: readonly D[],
): Promise<DeliveryOutcome[]> => {
  const outcomes: DeliveryOutcome[] = [];
  let admitted = false;
  for (const delivery of deliveries) {
    if (delivery.ignored !== undefined) {
      outcomes.push({ kind: 'ignored', reason: delivery.ignored });
      continue;
    }
    if (!admitted && source.admit) await source.admit(request);
    admitted = true;
    outcomes.push(await receiveDelivery(source, deps, request, caller, delivery).catch(decidedIfClaimHeld));
  }
  return outcomes;
};

/** Another delivery holds the delivery's claim (opened the conversation), read or in its write: that one decided. */
const decidedIfClaimHeld = (error: unknown): DeliveryOutcome => {
  if (error instanceof ClaimHeldError) return DECIDED;
  throw error;
};

const receiveDelivery = async <D extends Delivery, Route>(
  source: IntakeSource<D, Route>,
  deps: IntakeDependencies,
  request: IntakeRequest<Route>,
  caller: IntakeCaller,
  delivery: D,
): Promise<DeliveryOutcome> => {
  const claim = claimOf(source, delivery);
  const on = { source, deps, request, caller, delivery, claim };
  if (delivery.refusal && delivery.refusalBeforeConnection) return refuse(on, delivery.refusal, delivery.refusalFields ?? {}, undefined, undefined);
  const named = delivery.connection;
  if (!source.connection || !named) return receiveOn(on, undefined);
  const connections = deps.connections;
  if (!connections) throw new Error('no connections');
  const id = named.id;
  // On the connection as it is now, whatever the cache (CONTRACT.md section 14): moved, the lead lands in
  // its new project; removed, it is not connected. The second attempt reads it afresh (forgotten).
  // A delivery that names no valid id names no connection: not connected, without a read.
  return receivedAtOnce(
    async () => receiveOn(on, id === undefined ? undefined : await connections.lookup({ ...named, id }), true),
    () => id !== undefined && connections.forget(id, named.accountId),
  );
};

interface On<D extends Delivery, Route> {
  readonly source: IntakeSource<D, Route>;
  readonly deps: IntakeDependencies;
  readonly request: IntakeRequest<Route>;
  readonly caller: IntakeCaller;
  readonly delivery: D;
  readonly claim: IdempotencyClaim | undefined;
}

/** One delivery on its connection as read (none: it names none, or `named` and not connected). */
const receiveOn = async <D extends Delivery, Route>(on: On<D, Route>, connection: Connection | undefined, named = false): Promise<DeliveryOutcome> => {
  const { source, deps, caller, delivery, claim } = on;
  if (named && !connection) return notConnected(on);
  // Whatever this delivery writes is refused if its connection was rotated, removed or moved since it was read.
  const guard: ConnectionGuard | undefined = connection && source.connection ? { ...connection, shape: source.connection.key.shape } : undefined;
  const accountId = caller.account?.config.id ?? connection?.accountId;
  caller.accountId = accountId;
  // A source whose deliveries carry claims is given their check (deps.claims): held, ClaimHeldError.
  const claims = delivery.claims;
  if (claims && accountId !== undefined) await deps.claims!(accountId, delivery);
  const before = delivery.fields(connection);
  if (delivery.refusal) return refuse(on, delivery.refusal, delivery.refusalFields ?? {}, guard, before, accountId);
  let fields: ValidatedFields | undefined;
  try {
    fields = source.lead.validate(before, delivery);
    const account = caller.account ?? (await deps.directory.account(accountId ?? ''));
    const { lead, replayed } = await createLead(source.lead.submission(fields, delivery), account, deps, { idempotency: claim, guard, claims });
    return { kind: 'created', leadId: lead.id, replayed, repeated: lead.is_repeated };
  } catch (error) {
    // The connection's account is gone: the connection is connected to no account.
    if (error instanceof ClientNotFoundError) return notConnected(on);
    // The platform id's first delivery was kept as a rejection record: it decided. Or it was a redelivery
    // of a lead its person had erased (CONTRACT.md section 12): nothing is recorded about them again.
    if (error instanceof IdempotencyKeyReusedError || error instanceof LeadErasedError) return DECIDED;
    if (!isRejection(error)) throw error;
    return refuse(on, error, refusedFields(error, fields ?? {}) ?? delivery.refusalFields ?? {}, guard, before, accountId, fields);
  }
};

/** A delivery whose connection is not connected, as its source declares (NotConnectedRule). */
const notConnected = <D extends Delivery, Route>(on: On<D, Route>): Promise<DeliveryOutcome> | DeliveryOutcome => {
  const rule = on.source.connection!.notConnected;
  if (rule.answer === 'refuse') throw rule.error();
  if (rule.answer === 'ignore') return { kind: 'ignored', reason: 'not_connected' };
  return refuse(on, rule.error(), on.delivery.connection?.notConnectedFields ?? {}, undefined, undefined);
};

/**
 * The delivery's rejection record, kept once per platform id with its claim (recordRefusal), and on
 * its connection's guard when it has one.
 */
const refuse = async <D extends Delivery, Route>(
  { source, deps, request, caller, delivery, claim }: On<D, Route>,
  error: LeadIntakeError,
  fields: Readonly<Record<string, unknown>>,
  guard: ConnectionGuard | undefined,
  before: Readonly<Record<string, unknown>> | undefined,
  accountId = caller.account?.config.id,
  validated?: ValidatedFields,
): Promise<DeliveryOutcome> => {
  if (accountId === undefined) throw new Error('no account');
  // One name per cause, whatever the source (CONTRACT.md section 20): the error's own.
  const { reason } = error;
  const rejection = rejectionOf(
    source.name,
    { reason, message: error.message, fields, platformIds: platformIdsOf(source, delivery) },
    { requestId: request.requestId, body: delivery.person ?? before ?? {}, fields: validated },
  );
  const kept = await recordRefusal(deps.rejections, accountId, rejection, claim, guard, delivery.claims);
  return kept === 'recorded' ? { kind: 'rejected', reason } : DECIDED;
};

const DECIDED: DeliveryOutcome = { kind: 'already_decided' };

/** The delivery's ids as its records carry them: its qualifiers, then its id under the source's name for it. */
const platformIdsOf = (source: IntakeSource<any, any>, delivery: Delivery): Readonly<Record<string, string>> | undefined => {
  const platformId = delivery.platformId;
  if (!platformId || !source.platformId) return undefined;
  return { ...platformId.qualifiers, ...(platformId.id !== undefined && { [source.platformId.field]: platformId.id }) };
};

/** The platform id's one claim, for its lead and for its record alike; none without an id. */
const claimOf = (source: IntakeSource<any, any>, delivery: Delivery): IdempotencyClaim | undefined => {
  const platformId = delivery.platformId;
  if (!source.platformId || platformId?.id === undefined) return undefined;
  return platformLeadIdempotency(source.platformId.idempotencyPrefix, source.name, [...Object.values(platformId.qualifiers ?? {}), platformId.id].join('\n'));
};
