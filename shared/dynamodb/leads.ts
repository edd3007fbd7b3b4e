/**
 * Leads, their mobile claims and idempotency keys, in the Leads table (docs/data-model.md):
 *   LEADS#<account>#<project> / LEAD#<lead id>    the lead record, item_type "lead", account_id
 *   LEADS#<account>#<project> / MOBILE#<mobile>   item_type "mobile_claim", lead_id of the original
 *   IDEMPOTENCY#<account>#<sha256 of key> / IDEMPOTENCY   request_hash, lead (JSON), expires_at (24 h, or the claim's own TTL)
 * The request path's writes only: the admin side's reads of leads are lead-archive.ts's.
 */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LeadRecord } from '../domain/lead.ts';
import type { PersonKeyring } from '../domain/person-data.ts';
import { containerPersonKeyring } from '../person-keyring.ts';
import { leadLookupPuts } from './people.ts';
import type { IdempotencyClaim, IdempotentReplay, LeadStore, MarkerTaken, OriginalLeadOutcome, RepeatLeadOutcome, WriteClaim, WriteGuard } from '../domain/ports/leads.ts';
import type { ClaimWrites } from './delivery-claims.ts';
import { checkConnectionGuard, CONNECTION_GUARD, type ConnectionGuardItem } from './connection-items.ts';
import { NamedItems, sendTransaction } from './transactions.ts';
import { contendedWrite, DEFAULT_RETRY, type TransactionRetryPolicy } from './contended-write.ts';
import { LEAD_ITEM_TYPE, leadAgeAttributes, leadPartitionKey } from './lead-items.ts';
import { rejectionKeyOf } from './rejection-items.ts';
import { QuarantineReleaseRefusedError } from '../domain/errors.ts';
import { epochSeconds, orUnavailable, putAll, sha256, TableStore, type CancellationReason } from './requests.ts';

export { READ_BACK_RESERVE_MS } from './requests.ts';

export { DEFAULT_RETRY, type TransactionRetryPolicy } from './contended-write.ts';

/** What each item of a lead's transaction is, by name (transactions.ts): a cancellation is read by these names. */
type LeadItemName = 'mobile_claim' | 'original_claim' | 'lead' | 'idempotency_key' | 'release_marker' | 'person_lookup' | typeof CONNECTION_GUARD | 'quarantine_release' | 'delivery_claim';

/** How long an idempotency key holds unless its claim says otherwise. */
const IDEMPOTENCY_SECONDS = 24 * 60 * 60;

const projectPk = leadPartitionKey;
const mobileClaimKey = (accountId: string, projectId: string, mobile: string) => ({ pk: projectPk(accountId, projectId), sk: `MOBILE#${mobile}` });
/** A mobile's claim, naming the lead that holds it: the original. */
const claimItem = (accountId: string, lead: LeadRecord) => ({
  ...mobileClaimKey(accountId, lead.projectID, lead.mobile_number),
  item_type: 'mobile_claim',
  lead_id: lead.id,
  created_at: lead.created_at,
});
export const idempotencyPk = (accountId: string, key: string) => `IDEMPOTENCY#${accountId}#${sha256(key)}`;

/** The request path's lead writes: what the Lambda bundles carry. */
export class DynamoDbLeadStore extends TableStore implements LeadStore {
  readonly #retry: TransactionRetryPolicy;
  readonly #keyring: PersonKeyring;
  /** A delivery's guard as an item of its write, on the Config table (connectionGuardItem). */
  readonly #guardItem: ConnectionGuardItem | undefined;
  readonly #claims: ClaimWrites | undefined;

  constructor(
    db: DynamoDBDocumentClient,
    leadsTable: string,
    retry: TransactionRetryPolicy = DEFAULT_RETRY,
    keyring: PersonKeyring = containerPersonKeyring(),
    guardItem?: ConnectionGuardItem,
    /** Given where deliveries carry claims (WriteClaim: a WhatsApp conversation's), how its writes take them (delivery-claims.ts). */
    claims?: ClaimWrites,
  ) {
    super(db, leadsTable);
    this.#retry = retry;
    this.#keyring = keyring;
    this.#guardItem = guardItem;
    this.#claims = claims;
  }


  /**
   * One TransactWriteItems: the mobile claim, guarded by attribute_not_exists, and the lead. Both are
   * stored or neither. When the claim exists, DynamoDB hands back the existing claim in the same call
   * (ReturnValuesOnConditionCheckFailure), which names the original lead. The person lookup items
   * (CONTRACT.md section 12) and a guard (a delivery's connection, a quarantine's release) ride in the
   * same transaction; each item is named where it is added, and a cancellation read by those names.
   */
  async insertOriginal(
    accountId: string,
    lead: LeadRecord,
    idempotency?: IdempotencyClaim,
    guard?: WriteGuard,
    marker?: IdempotencyClaim,
    claims?: readonly WriteClaim[],
  ): Promise<OriginalLeadOutcome> {
    const claim = claimItem(accountId, lead);
    const items = new NamedItems<LeadItemName>()
      .add('mobile_claim', {
        Put: { TableName: this.table, Item: claim, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
      })
      .add('lead', { Put: { TableName: this.table, Item: this.#leadItem(accountId, lead) } });
    this.#addClaims(items, accountId, lead, idempotency, marker);
    items.add('person_lookup', ...(await this.#lookupPuts(accountId, lead, idempotency)));
    this.#addGuard(items, accountId, lead, guard);
    // Only a store given ClaimWrites is given claims (its function's deliveries carry them: shared/whatsapp/runtime.ts).
    if (claims) await this.#claims!.add(items, accountId, claims);

    return this.#writeLead(accountId, lead, () => sendTransaction(this.db, items.items), async (reasons) => {
      // First: a connection changed since it was checked (or a release refused) stores nothing, whatever else failed.
      checkGuard(items, reasons, guard);
      // The key was used before: whatever else failed, the sender is retrying (or reusing it).
      const replay = claimRefusal(items, reasons, lead, idempotency, marker);
      if (replay) return replay;
      // Another delivery holds the claim (a conversation it opened): it decided, whatever the mobile's claim says (ClaimHeldError).
      if (claims) this.#claims!.check(items, reasons);
      const claimReason = items.reasonOf(reasons, 'mobile_claim');
      if (claimReason?.Code !== 'ConditionalCheckFailed') return undefined;
      const originalLeadId = claimReason.Item?.lead_id?.S ?? (await this.#originalLeadId(claim.pk, claim.sk));
      // The claim is this lead's own: an earlier attempt of this very write was applied.
      if (originalLeadId === lead.id) return { kind: 'stored' } as const;
      return { kind: 'duplicate', originalLeadId } as const;
    });
  }

  /**
   * A repeated lead: its id is new, so an unconditional put cannot overwrite anything, and a retry of
   * the same write (by the SDK after a lost answer) stores the same items again rather than failing.
   * With its person lookup items in one BatchWriteItem, not a transaction: nothing here is
   * conditional, and the repeats of one person must not queue on their shared lookup partitions
   * (DynamoDB Local serialises transactions per partition key: 100 simultaneous repeats timed out).
   * Under an idempotency key, the key must be atomic with the lead: one transaction of all of them.
   * A claim or a guard is a condition too: with one, the repeat is a transaction like a keyed one, and
   * it checks in it that `originalLeadId` still holds the mobile's claim (a batch cannot). Stored
   * unchecked (by a batch, or again without the check the claim refused), the caller reads the claim
   * after it.
   */
  async insertRepeat(
    accountId: string,
    lead: LeadRecord,
    idempotency?: IdempotencyClaim,
    guard?: WriteGuard,
    marker?: IdempotencyClaim,
    originalLeadId?: string,
    claims?: readonly WriteClaim[],
  ): Promise<RepeatLeadOutcome> {
    // A claim or a guard is a condition too: with one, the repeat is a transaction like a keyed one.
    const transactional = idempotency || marker || guard || claims;
    const checked = transactional && originalLeadId;
    const item = this.#leadItem(accountId, lead);
    const lookups = await this.#lookupPuts(accountId, lead, idempotency);
    const items = new NamedItems<LeadItemName>().add('lead', { Put: { TableName: this.table, Item: item } });
    this.#addClaims(items, accountId, lead, idempotency, marker);
    items.add('person_lookup', ...lookups);
    this.#addGuard(items, accountId, lead, guard);
    // Only a store given ClaimWrites is given claims (its function's deliveries carry them: shared/whatsapp/runtime.ts).
    if (claims) await this.#claims!.add(items, accountId, claims);
    if (checked) {
      items.add('original_claim', { ConditionCheck: { TableName: this.table, Key: mobileClaimKey(accountId, lead.projectID, lead.mobile_number), ConditionExpression: 'lead_id = :original', ExpressionAttributeValues: { ':original': checked } } });
    }
    const send = transactional
      ? () => sendTransaction(this.db, items.items)
      : () => putAll(this.db, this.table, [item, ...lookups.map(({ Put }) => Put.Item)]);
    const outcome = await this.#writeLead(accountId, lead, send, async (reasons) => {
      checkGuard(items, reasons, guard);
      const replay = claimRefusal(items, reasons, lead, idempotency, marker);
      if (replay) return replay;
      // Another delivery holds the claim (a conversation it opened): it decided (ClaimHeldError).
      if (claims) this.#claims!.check(items, reasons);
      return checked && items.failed(reasons, 'original_claim') ? ORIGINAL_MOVED : undefined;
    });
    // Refused by the check alone, nothing was stored: the repeat is stored unchecked, for the caller to settle.
    if (outcome === ORIGINAL_MOVED) return this.insertRepeat(accountId, lead, idempotency, guard, marker, undefined, claims);
    return outcome.kind === 'stored' ? { kind: 'stored', originalChecked: Boolean(checked) } : outcome;
  }

  /**
   * One transaction: the claim as the caller read it (taken, when vacant; checked, when held), the
   * lead's `is_repeated` and `parent_lead_id` as given (the lead must still be stored), and the copy
   * of the lead in its idempotency record, so a replay answers what is stored.
   */
  async rewriteRepeat(accountId: string, lead: LeadRecord, claimHolder: string | undefined, idempotency?: IdempotencyClaim): Promise<boolean> {
    const claimKey = mobileClaimKey(accountId, lead.projectID, lead.mobile_number);
    const written = await contendedWrite({
      send: () =>
        this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              claimHolder === undefined
                ? { Put: { TableName: this.table, Item: claimItem(accountId, lead), ConditionExpression: 'attribute_not_exists(pk)' } }
                : { ConditionCheck: { TableName: this.table, Key: claimKey, ConditionExpression: 'lead_id = :claimedBy', ExpressionAttributeValues: { ':claimedBy': claimHolder } } },
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: claimKey.pk, sk: `LEAD#${lead.id}` },
                  UpdateExpression: 'SET is_repeated = :repeated, parent_lead_id = :parent',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: { ':repeated': lead.is_repeated, ':parent': lead.parent_lead_id },
                },
              },
              ...(idempotency
                ? [
                    {
                      Update: {
                        TableName: this.table,
                        Key: { pk: idempotencyPk(accountId, idempotency.key), sk: 'IDEMPOTENCY' },
                        UpdateExpression: 'SET #lead = :lead',
                        ConditionExpression: 'request_hash = :hash',
                        ExpressionAttributeNames: { '#lead': 'lead' },
                        ExpressionAttributeValues: { ':lead': JSON.stringify(lead), ':hash': idempotency.requestHash },
                      },
                    },
                  ]
                : []),
            ],
          }),
        ),
      refusal: (reasons) => (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed') ? false : undefined),
    });
    return written !== false;
  }

  /**
   * Sends a write of the lead through the one contended-write path (contended-write.ts): a cancelled
   * transaction is read by `refusal` (a duplicate, a reused idempotency key); a conflict or a throttle
   * is retried while the request has time; before a 503 the lead is read back, since a write whose
   * answer was lost (or whose first attempt is still running) may have been applied.
   */
  #writeLead<R>(
    accountId: string,
    lead: LeadRecord,
    send: () => Promise<unknown>,
    refusal: (reasons: readonly CancellationReason[]) => Promise<R | undefined>,
  ): Promise<{ readonly kind: 'stored' } | R> {
    return contendedWrite({ send, refusal, isApplied: () => this.#isStored(accountId, lead), retry: this.#retry });
  }

  async findOriginal(accountId: string, projectId: string, mobile: string): Promise<string | undefined> {
    const { Item } = await orUnavailable(() =>
      this.db.send(
        new GetCommand({ TableName: this.table, Key: mobileClaimKey(accountId, projectId, mobile), ConsistentRead: true }),
      ),
    );
    return Item?.lead_id;
  }

  /**
   * The answer a key gave, read before a check that could answer differently (CONTRACT.md section
   * 14): one consistent GetItem, on the request path only where such a check is about to run.
   */
  async previousAnswer(accountId: string, claim: IdempotencyClaim): Promise<IdempotentReplay | undefined> {
    const { Item } = await orUnavailable(() =>
      this.db.send(new GetCommand({ TableName: this.table, Key: { pk: idempotencyPk(accountId, claim.key), sk: 'IDEMPOTENCY' }, ConsistentRead: true })),
    );
    if (!Item || Number(Item.expires_at) < epochSeconds(new Date().toISOString())) return undefined;
    return replayOfItem(Item, claim);
  }

  /** The idempotency record, then the release marker, of a write (either may be absent), each under its name. */
  #addClaims(items: NamedItems<LeadItemName>, accountId: string, lead: LeadRecord, idempotency: IdempotencyClaim | undefined, marker: IdempotencyClaim | undefined): void {
    if (idempotency) items.add('idempotency_key', idempotencyPut(this.table, accountId, lead, idempotency));
    if (marker) items.add('release_marker', idempotencyPut(this.table, accountId, lead, marker, false, { lead_id: lead.id }));
  }

  // ---- internals -----------------------------------------------------------------------------

  /**
   * The guard's item, when there is one (none for the four endpoints and Meta), under its name: a
   * connection's ConditionCheck (a Google form's, a call number's), or the released record's mark (quarantine release),
   * written with the lead.
   */
  #addGuard(items: NamedItems<LeadItemName>, accountId: string, lead: LeadRecord, guard: WriteGuard | undefined): void {
    if (!guard) return;
    if ('rejectionId' in guard) {
      const key = rejectionKeyOf(accountId, guard.rejectionId);
      if (!key) throw new QuarantineReleaseRefusedError();
      items.add('quarantine_release', {
          Update: {
            TableName: this.table,
            Key: key,
            UpdateExpression: 'SET released_at = :at, lead_id = :lead',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(released_at)',
            ExpressionAttributeValues: { ':at': lead.created_at, ':lead': lead.id },
          },
        });
      return;
    }
    if (this.#guardItem === undefined) throw new Error('a guarded lead write needs the Config table');
    items.add(CONNECTION_GUARD, this.#guardItem(guard));
  }

  /** The lead's person lookup items (shared/dynamodb/people.ts): no request of their own. */
  #lookupPuts(accountId: string, lead: LeadRecord, idempotency?: IdempotencyClaim) {
    const key = { pk: projectPk(accountId, lead.projectID), sk: `LEAD#${lead.id}` };
    return leadLookupPuts(this.#keyring, this.table, accountId, key, lead, idempotency && idempotencyPk(accountId, idempotency.key));
  }

  #leadItem(accountId: string, lead: LeadRecord) {
    return { pk: projectPk(accountId, lead.projectID), sk: `LEAD#${lead.id}`, item_type: LEAD_ITEM_TYPE, account_id: accountId, ...leadAgeAttributes(accountId, lead), ...lead };
  }

  /**
   * A write that timed out or lost its connection may still have been applied. Before answering 503
   * (which tells the sender nothing was stored), read the lead back: if it is there, it was stored,
   * and the sender must hear 200, or its retry would store the lead twice. With no time or no
   * database left for the read, the answer is the 503.
   */
  async #isStored(accountId: string, lead: LeadRecord): Promise<boolean> {
    try {
      const { Item } = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: { pk: projectPk(accountId, lead.projectID), sk: `LEAD#${lead.id}` },
          ConsistentRead: true,
          ProjectionExpression: 'pk',
        }),
      );
      return Item !== undefined;
    } catch {
      return false;
    }
  }

  /** Only when DynamoDB did not hand the existing claim back with the cancellation. */
  async #originalLeadId(pk: string, sk: string): Promise<string> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: { pk, sk }, ConsistentRead: true })));
    if (!Item) throw new Error('mobile claim vanished after a failed condition');
    return Item.lead_id;
  }
}

/**
 * The idempotency record of a key: written only if the key is unused (or expired, since DynamoDB's
 * TTL deletes lazily), holding the lead so a retry is answered with it without another read. A
 * release's claim of the quarantined request's key may also replace that quarantine's own answer
 * (`quarantine_id`, written by shared/dynamodb/rejections.ts). `withLead` false: a marker alone, with
 * no copy of the lead (a release marker beside the key's record, which an erasure need not reach).
 */
export const idempotencyPut = (
  table: string,
  accountId: string,
  lead: LeadRecord,
  { key, requestHash, ttlSeconds = IDEMPOTENCY_SECONDS, quarantineId }: IdempotencyClaim,
  withLead = true,
  extra: Record<string, unknown> = {},
) => ({
  Put: {
    TableName: table,
    Item: {
      pk: idempotencyPk(accountId, key),
      sk: 'IDEMPOTENCY',
      item_type: withLead ? 'idempotency_key' : 'release_marker',
      request_hash: requestHash,
      ...(withLead && { lead: JSON.stringify(lead) }),
      ...extra,
      created_at: lead.created_at,
      expires_at: epochSeconds(lead.created_at) + ttlSeconds,
    },
    ConditionExpression: `attribute_not_exists(pk) OR expires_at < :now${quarantineId !== undefined ? ' OR quarantine_id = :quarantine' : ''}`,
    ExpressionAttributeValues: { ':now': epochSeconds(lead.created_at), ...(quarantineId !== undefined && { ':quarantine': quarantineId }) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  },
});

/**
 * What a cancelled write's claims say, read by their names: the key used already (a replay, or a
 * refusal), or the release marker taken.
 */
/** A transactional repeat's check of its original's claim refused: nothing was stored. */
const ORIGINAL_MOVED = Symbol('original moved');

const claimRefusal = (
  items: NamedItems<LeadItemName>,
  reasons: readonly CancellationReason[],
  lead: LeadRecord,
  idempotency: IdempotencyClaim | undefined,
  marker: IdempotencyClaim | undefined,
): { readonly kind: 'stored' } | IdempotentReplay | MarkerTaken | undefined => {
  const replay = idempotency && replayOf(items.reasonOf(reasons, 'idempotency_key'), idempotency);
  // An earlier attempt of this very write was applied (its answer lost): stored.
  if (replay) return replay.kind === 'replay' && replay.lead.id === lead.id ? { kind: 'stored' } : replay;
  const markerReason = marker && items.reasonOf(reasons, 'release_marker');
  if (markerReason?.Code !== 'ConditionalCheckFailed') return undefined;
  return markerReason.Item?.lead_id?.S === lead.id ? { kind: 'stored' } : { kind: 'marker_taken' };
};

export const replayOf = (reason: CancellationReason | undefined, claim: IdempotencyClaim): IdempotentReplay | undefined => {
  if (reason?.Code !== 'ConditionalCheckFailed') return undefined;
  const item = reason.Item as Record<string, { S?: string; BOOL?: boolean }> | undefined;
  return replayOfItem({ erased: item?.erased?.BOOL, request_hash: item?.request_hash?.S, lead: item?.lead?.S }, claim);
};

/** What a key's record answers a request with this claim (the record as the document client reads it). */
const replayOfItem = (item: Record<string, any>, { requestHash }: IdempotencyClaim): IdempotentReplay => {
  if (item.erased === true) return { kind: 'erased' };
  if (item.request_hash !== requestHash || typeof item.lead !== 'string') return { kind: 'key_reused' };
  return { kind: 'replay', lead: JSON.parse(item.lead) as LeadRecord };
};


/** Throws the guard's refusal when its item (read by its name) failed its condition. */
const checkGuard = (items: NamedItems<LeadItemName>, reasons: readonly CancellationReason[], guard: WriteGuard | undefined): void => {
  if (guard && 'rejectionId' in guard) {
    if (items.failed(reasons, 'quarantine_release')) throw new QuarantineReleaseRefusedError();
    return;
  }
  checkConnectionGuard(items, reasons, guard);
};
