/**
 * Refused requests kept for their account, in the Leads table (docs/data-model.md):
 *   REJECTIONS#<account>#<shard> / <created_at>#<id>   a rejection record, expiring after 30 days
 *     reason_pk = REJECTIONS#<account>#<shard>#<reason>  (index by_reason, sort key sk)
 *   REJECTIONRATE#<key id>#<minute> / RATE              records stored for a browser key in a minute (minute-counters.ts)
 * The id is a ULID whose time is created_at, and the shard is from the id: the item is found from the
 * id alone (one GetItem). A flood of refusals spreads over REJECTION_SHARDS partition keys.
 *
 * The admin side (pages, one record, release marks) is rejection-archive.ts. A page newest first is, per shard, one Query of at most limit + 2 items below the cursor, merged:
 * REJECTION_SHARDS bounded queries whatever the log's size (the reason filter does the same on the
 * by_reason index, so it never filters a read). Records written before ids existed (sk
 * `<time>#<request id>`, and before the shards under REJECTIONS#<account>) are listed alike, unfiltered,
 * until they expire, under their request id; they are not in the index, so not listed by reason.
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ulidAt, ulidsAt } from '../domain/lead-id.ts';
import type { PersonKeyring } from '../domain/person-data.ts';
import { boundedRejection } from '../domain/rejections.ts';
import type { ConnectionGuard } from '../domain/ports/connections.ts';
import type { IdempotencyClaim, IdempotentReplay, WriteClaim } from '../domain/ports/leads.ts';
import type { Rejection, RejectionLog } from '../domain/ports/rejections.ts';
import type { ClaimWrites } from './delivery-claims.ts';
import { checkConnectionGuard, CONNECTION_GUARD, type ConnectionGuardItem } from './connection-items.ts';
import { idempotencyPk, idempotencyPut, replayOf } from './leads.ts';
import { NamedItems, type TransactItem } from './transactions.ts';
import { REASON_COUNT_PREFIX, reasonPk, REJECTION_REASON_KEY, REJECTION_SECONDS, rejectionItem, rejectionShard, rejectionsPk } from './rejection-items.ts';
import { containerPersonKeyring } from '../person-keyring.ts';
import { rejectionLookups } from './people.ts';
import { epochSeconds, putAll, TableStore } from './requests.ts';
import { contendedWrite } from './contended-write.ts';
import { MinuteCounters } from './minute-counters.ts';

/** Records of a browser key stored per minute, UTC, unless the settings say otherwise (lib/settings.ts). */
export const DEFAULT_REJECTION_RECORDS_PER_MINUTE = 60;

// The item's shape is rejection-items.ts's; its names stay importable from here.
export {
  legacyRejectionsPk,
  REASON_COUNT_PREFIX,
  reasonPk,
  REJECTION_REASON_INDEX,
  REJECTION_REASON_KEY,
  REJECTION_SECONDS,
  REJECTION_SHARDS,
  rejectionKeyOf,
  rejectionShard,
  rejectionsPk,
} from './rejection-items.ts';

export interface RejectionLogOptions {
  /** A browser key's records stored per minute; past it, counted. */
  readonly recordsPerMinute?: number;
}

/** The request path's write of a rejection. */
export class DynamoDbRejectionLog extends TableStore implements RejectionLog {
  /** A browser key's records per minute; a bucket known full in this container sends its next refusals straight to the suppressed count. */
  readonly #rate: MinuteCounters;
  readonly #ids = ulidsAt();

  readonly #keyring: PersonKeyring;
  /** A delivery's guard as an item of its write, on the Config table (connectionGuardItem). */
  readonly #guardItem: ConnectionGuardItem | undefined;

  readonly #claims: ClaimWrites | undefined;

  constructor(
    db: DynamoDBDocumentClient,
    table: string,
    options: RejectionLogOptions = {},
    keyring: PersonKeyring = containerPersonKeyring(),
    guardItem?: ConnectionGuardItem,
    /** Given where deliveries carry claims (a WhatsApp conversation's), how its writes take them (delivery-claims.ts). */
    claims?: ClaimWrites,
  ) {
    super(db, table);
    this.#rate = new MinuteCounters(table, { prefix: 'REJECTIONRATE', attribute: 'stored', itemType: 'rejection_rate' }, options.recordsPerMinute ?? DEFAULT_REJECTION_RECORDS_PER_MINUTE);
    this.#keyring = keyring;
    this.#guardItem = guardItem;
    this.#claims = claims;
  }

  /**
   * The record, with the lookup items that find it by the person it names (CONTRACT.md section 12), in
   * the one request it costs: a put alone, one BatchWriteItem with them, or (a browser key's) the
   * transaction with the minute's count. The person's details are not kept beside the record, only
   * their keyed hashes, in the lookup items' keys. A webhook delivery's record (given its guard) is one
   * transaction of them and the guard's ConditionCheck instead: nothing is kept when its connection was
   * rotated, removed or moved since it was read (ConnectionChangedError).
   */
  async record(
    accountId: string,
    { person, answered, idempotency_key, idempotency_request_hash, ...rejection }: Rejection,
    guard?: ConnectionGuard,
  ): Promise<IdempotentReplay | undefined> {
    // The record's time is the refusal's: the minute of the bound, its created_at and the time in its id.
    const createdAt = new Date(rejection.at);
    const bounded = !guard && rejection.key_id !== undefined && rejection.browserKey === true;
    const minute = MinuteCounters.minuteOf(createdAt);
    // Visitors whose challenge could not be checked have a bound of their own (CONTRACT.md section 14):
    // a flood of refusals on the same public key cannot crowd their quarantine records out.
    const bucket = rejection.reason === 'captcha_unavailable' ? `${rejection.key_id}#captcha_unavailable` : `${rejection.key_id}`;
    // A quarantine answered as a new lead, under the request's key: the key keeps that answer, written
    // with the record, so a repeat gets it again and stores nothing (CONTRACT.md section 14).
    const claim = answered && idempotency_key !== undefined && idempotency_request_hash !== undefined ? { key: idempotency_key, requestHash: idempotency_request_hash } : undefined;
    // A flood past the bound costs its counter write and nothing else: no record, no lookup hashes. A
    // request under a key goes on to the write, whose condition on the key tells a repeat (not counted again).
    if (bounded && !claim && this.#rate.isKnownFull(bucket, minute)) {
      await this.#suppress(accountId, rejection, minute);
      return undefined;
    }
    const id = this.#ids(createdAt.getTime());
    const kept = boundedRejection({ ...rejection, ...(idempotency_key !== undefined && { idempotency_key, idempotency_request_hash }) });
    const record = {
      ...rejectionItem(accountId, id, createdAt.toISOString(), kept),
      // Where the key's copy of the answer is, for an erasure of the record (shared/dynamodb/people.ts).
      ...(claim && { idempotency_pk: idempotencyPk(accountId, claim.key) }),
    };
    const lookups = await rejectionLookups(this.#keyring, this.table, accountId, { pk: record.pk, sk: record.sk }, person, record.expires_at);
    const item = { ...record, ...(lookups.personRefs.length > 0 && { person_refs: lookups.personRefs }) };
    if (guard) {
      await this.#guarded(item, lookups.puts, guard);
      return undefined;
    }
    const items = [item, ...lookups.puts.map(({ Put }) => Put.Item)];
    const isApplied = () => this.#isStored(item);
    if (!bounded && !claim) {
      // One put, or one BatchWriteItem (requests.ts putAll): a flood of refusals neither contends with
      // the lead transactions nor pays transactional write units.
      const send = items.length === 1 ? () => this.db.send(new PutCommand({ TableName: this.table, Item: item })) : () => putAll(this.db, this.table, items);
      await contendedWrite({ send, isApplied });
      return undefined;
    }
    // Each item named where it is added: the cancellation is read by these names.
    const transaction = new NamedItems<'rejection_rate' | 'rejection' | 'idempotency_key' | 'person_lookup'>();
    if (bounded) {
      transaction.add('rejection_rate', { Update: this.#rate.countUpdate(bucket, minute, createdAt) });
    }
    transaction.add('rejection', { Put: { TableName: this.table, Item: item } });
    if (claim) transaction.add('idempotency_key', idempotencyPut(this.table, accountId, answered!, claim, true, { quarantine_id: id }));
    transaction.add('person_lookup', ...lookups.puts);
    // The record, the minute's count and the key's answer in one write: within the bound it costs the
    // one request it always did. Two refusals of one key in one minute meet on the counter item: the
    // loser of that conflict is retried (contended-write.ts), never dropped.
    const outcome = await contendedWrite<IdempotentReplay | 'full'>({
      send: () =>
        this.db.send(
          new TransactWriteCommand({
            TransactItems: transaction.items,
          }),
        ),
      refusal: (reasons) => {
        // The key answered already (a repeat of the request): nothing stored, nothing counted.
        const replay = claim && replayOf(transaction.reasonOf(reasons, 'idempotency_key'), claim);
        if (replay) return replay;
        return bounded && transaction.failed(reasons, 'rejection_rate') ? 'full' : undefined;
      },
      isApplied,
    });
    if (outcome !== 'full') return outcome.kind === 'stored' ? undefined : outcome;
    this.#rate.markFull(bucket, minute);
    await this.#suppress(accountId, rejection, minute);
    return undefined;
  }

  /** Whether a record's write whose answer was lost was applied: one consistent GetItem of its key. */
  async #isStored(item: { pk: string; sk: string }): Promise<boolean> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true, ProjectionExpression: 'pk' }));
    return Item !== undefined;
  }

  /**
   * The record, its lookup items and the guard in one transaction. A write whose answer was lost (the
   * SDK's retries spent) is read back before a 503, so Google's redelivery after it adds no second record.
   */
  async #guarded(item: Record<string, unknown> & { pk: string; sk: string }, lookups: readonly TransactItem[], guard: ConnectionGuard): Promise<void> {
    const items = new NamedItems<'rejection' | 'person_lookup' | typeof CONNECTION_GUARD>()
      .add('rejection', { Put: { TableName: this.table, Item: item } })
      .add('person_lookup', ...lookups)
      .add(CONNECTION_GUARD, this.#requireGuardItem()(guard));
    await contendedWrite({
      send: () => this.db.send(new TransactWriteCommand({ TransactItems: items.items })),
      // A connection changed or removed since it was checked: nothing stored, 401 (ConnectionChangedError).
      refusal: (reasons) => checkConnectionGuard(items, reasons, guard),
      isApplied: () => this.#isStored(item),
    });
  }

  /**
   * The record, its lookup items and the delivery's claim in one transaction: kept only if the claim's
   * idempotency item (leads.ts) is unused. A claim taken already (by a lead, or by this record's twin)
   * keeps nothing. The claim's item holds the record's id instead of a lead, so a later lead write
   * under it is refused as a reused key. Sent as every contended write is (contended-write.ts): a
   * conflict retried within the deadline, then 503 after a read-back (CONTRACT.md section 14).
   */
  async recordOnce(
    accountId: string,
    { person, answered: _answered, ...rejection }: Rejection,
    { key, requestHash, ttlSeconds = 24 * 60 * 60 }: IdempotencyClaim,
    guard?: ConnectionGuard,
    claims?: readonly WriteClaim[],
  ): Promise<'recorded' | 'already_decided'> {
    const createdAt = new Date(rejection.at);
    const at = createdAt.toISOString();
    const id = this.#ids(createdAt.getTime());
    const record = rejectionItem(accountId, id, at, boundedRejection(rejection));
    const lookups = await rejectionLookups(this.#keyring, this.table, accountId, { pk: record.pk, sk: record.sk }, person, record.expires_at);
    const item = { ...record, ...(lookups.personRefs.length > 0 && { person_refs: lookups.personRefs }) };
    // Each item named where it is added: the cancellation is read by these names.
    const transaction = new NamedItems<'rejection' | 'person_lookup' | 'idempotency_key' | typeof CONNECTION_GUARD | 'delivery_claim'>()
      .add('rejection', { Put: { TableName: this.table, Item: item } })
      .add('person_lookup', ...lookups.puts)
      .add('idempotency_key', {
        Put: {
          TableName: this.table,
          Item: { pk: idempotencyPk(accountId, key), sk: 'IDEMPOTENCY', item_type: 'idempotency_key', request_hash: requestHash, rejection_id: id, created_at: at, expires_at: epochSeconds(at) + ttlSeconds },
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
          ExpressionAttributeValues: { ':now': epochSeconds(at) },
        },
      });
    // The delivery's connection, checked in the same write (no extra round trip): moved or removed since it was read, nothing kept.
    if (guard) transaction.add(CONNECTION_GUARD, this.#requireGuardItem()(guard));
    // A delivery's claims (a conversation it opens), taken with the record: one held by another delivery, nothing kept.
    // Only a log given ClaimWrites is given claims (its function's deliveries carry them: shared/whatsapp/runtime.ts).
    if (claims) await this.#claims!.add(transaction, accountId, claims);
    const outcome = await contendedWrite({
      send: () => this.db.send(new TransactWriteCommand({ TransactItems: transaction.items })),
      // The claim taken already: this delivery's platform id was decided by an earlier one, wherever its connection points now.
      refusal: (reasons) => {
        if (transaction.failed(reasons, 'idempotency_key')) return 'already_decided' as const;
        // Another delivery holds a claim: it decided (ClaimHeldError).
        if (claims) this.#claims!.check(transaction, reasons);
        checkConnectionGuard(transaction, reasons, guard);
        return undefined;
      },
      isApplied: () => this.#isStored(item),
    });
    return outcome === 'already_decided' ? outcome : 'recorded';
  }

  #requireGuardItem(): ConnectionGuardItem {
    if (this.#guardItem === undefined) throw new Error('a guarded rejection record needs the Config table');
    return this.#guardItem;
  }

  /** One counter item per key and minute: the records not stored, in all and per reason. */
  async #suppress(accountId: string, rejection: Rejection, minute: string): Promise<void> {
    const start = `${minute}:00.000Z`;
    // The same id for every refusal of the key in the minute, so they all add to one item.
    const id = ulidAt(Date.parse(start), createHash('sha256').update(`suppressed\n${accountId}\n${rejection.key_id}`).digest());
    const shard = rejectionShard(id);
    await contendedWrite({
      send: () =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: rejectionsPk(accountId, shard), sk: `${start}#${id}` },
          UpdateExpression:
            'ADD #count :one, #reasonCount :one SET ' +
            '#type = :type, #id = :id, #created = :start, #at = :start, #request = :id, #endpoint = :endpoint, #reason = :suppressed, ' +
            '#message = :message, #key = :key, #fields = :fields, #reasonPk = :reasonPk, #expires = :expires',
          // Per-reason counts as attributes of their own (a map's member cannot be added to before the map exists).
          ExpressionAttributeNames: {
            '#count': 'count',
            '#reasonCount': `${REASON_COUNT_PREFIX}${rejection.reason}`,
            '#type': 'item_type',
            '#id': 'id',
            '#created': 'created_at',
            '#at': 'at',
            '#request': 'requestId',
            '#endpoint': 'endpoint',
            '#reason': 'reason',
            '#message': 'message',
            '#key': 'key_id',
            '#fields': 'fields',
            '#reasonPk': REJECTION_REASON_KEY,
            '#expires': 'expires_at',
          },
          ExpressionAttributeValues: {
            ':one': 1,
            ':type': 'rejection',
            ':id': id,
            ':start': start,
            ':endpoint': rejection.endpoint,
            ':suppressed': 'suppressed',
            ':message': `Rejection records of this key past ${this.#rate.perMinute} in this minute: counted, not stored`,
            ':key': rejection.key_id,
            ':fields': {},
            ':reasonPk': reasonPk(accountId, shard, 'suppressed'),
            ':expires': epochSeconds(start) + REJECTION_SECONDS,
          },
        }),
      ),
    });
  }
}

