/**
 * A scoped key's requests per calendar minute (the call webhook's bound, docs/reference.md "Calls"), in
 * the Leads table through the service's one minute counter (minute-counters.ts):
 *   KEYRATE#<key id>#<minute> / RATE   requests a key sent in a minute, expiring an hour after
 *
 * What it costs: a container admits a key's first deliveries of a minute on its own, up to its share
 * (a tenth of the bound: 30 of the default 300), with no request at all, so a tenant's ordinary calls
 * cost what they did (the lead's one transaction). Past its share, the container puts what it admitted
 * on the shared counter in one UpdateItem, and then counts each delivery there, until the counter is
 * full; then it refuses the rest of the minute from memory. One container's deliveries are bounded
 * exactly; a key spread over N containers at once gets at most the bound and N - 1 shares more. Never in
 * a transaction: a key's deliveries meet on the counter item, and a transaction there would cancel one
 * of two concurrent leads.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyRequestBound } from '../domain/ports/keys-and-accounts.ts';
import { MinuteCounters } from './minute-counters.ts';
import { orUnavailable, TableStore } from './requests.ts';

/** The counter items' partition key prefix: the only partitions the call function updates on its own (lib/constructs/lead-tables.ts). */
export const KEY_RATE_PREFIX = 'KEYRATE';

/** A container admits this share of the bound (one in ten) per key and minute before it counts on the shared counter. */
const CONTAINER_SHARE_DIVISOR = 10;
/** Keys a container remembers its share of before the memory is cleared. */
const KEYS_REMEMBERED = 10_000;

interface ContainerShare {
  readonly minute: string;
  /** Deliveries admitted on the container's share, not yet on the shared counter. */
  unshared: number;
  /** Past its share: every delivery of the minute is counted on the shared counter. */
  counting: boolean;
}

/**
 * Counts `amount` for the bucket's minute on its own (one UpdateItem): true when they fit under the
 * ceiling, false when they do not (the minute remembered full, so the rest of it costs no request).
 * An outage is the contract's 503 (orUnavailable).
 */
const admitOnCounter = async (counters: MinuteCounters, db: DynamoDBDocumentClient, bucket: string, at: Date, amount: number): Promise<boolean> => {
  const minute = MinuteCounters.minuteOf(at);
  if (counters.isKnownFull(bucket, minute)) return false;
  if (amount > counters.perMinute) {
    counters.markFull(bucket, minute);
    return false;
  }
  try {
    await orUnavailable(() => db.send(new UpdateCommand(counters.countUpdate(bucket, minute, at, amount))));
    return true;
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
    counters.markFull(bucket, minute);
    return false;
  }
};

export class DynamoDbKeyRequestRate extends TableStore implements KeyRequestBound {
  readonly #counters: MinuteCounters;
  readonly #share: number;
  readonly #shares = new Map<string, ContainerShare>();

  /** `perMinute`: the bound its source declares (the call webhook's setting, shared/calls/wire-names.ts). */
  constructor(db: DynamoDBDocumentClient, table: string, perMinute: number) {
    super(db, table);
    this.#counters = new MinuteCounters(table, { prefix: KEY_RATE_PREFIX, attribute: 'requests', itemType: 'key_request_rate' }, perMinute);
    this.#share = Math.floor(perMinute / CONTAINER_SHARE_DIVISOR);
  }

  async admit(keyId: string, at: Date): Promise<boolean> {
    const minute = MinuteCounters.minuteOf(at);
    if (this.#counters.isKnownFull(keyId, minute)) return false;
    let share = this.#shares.get(keyId);
    if (share?.minute !== minute) {
      if (this.#shares.size > KEYS_REMEMBERED) this.#shares.clear();
      share = { minute, unshared: 0, counting: false };
      this.#shares.set(keyId, share);
    }
    if (!share.counting && share.unshared < this.#share) {
      share.unshared += 1;
      return true;
    }
    // This delivery, and those the container admitted on its share, go on the shared counter together.
    const admitted = await admitOnCounter(this.#counters, this.db, keyId, at, share.unshared + 1);
    if (admitted) {
      share.unshared = 0;
      share.counting = true;
    }
    return admitted;
  }
}
