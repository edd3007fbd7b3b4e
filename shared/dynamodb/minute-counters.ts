/**
 * Counters with a ceiling per bucket and calendar minute (UTC), in the Leads table: one item per
 * bucket and minute, `<prefix>#<bucket>#<minute>` / `RATE`, whose count is ADDed only while it is below
 * the ceiling, expiring an hour after. The one mechanism behind both per-minute bounds of the service:
 * a browser key's rejection records (rejections.ts, the count inside the record's transaction) and a
 * scoped key's requests (request-rates.ts, the count alone, admitOnCounter there: kept out of this
 * class, which every lead function's bundle carries). A container remembers the minutes it saw
 * full, so what a bucket sends past its ceiling in that minute costs no round trip.
 */
import { epochSeconds } from './requests.ts';

export interface MinuteCounterShape {
  /** The items' partition key prefix (`REJECTIONRATE`, `KEYRATE`). */
  readonly prefix: string;
  /** The counted attribute (`stored`, `requests`). */
  readonly attribute: string;
  readonly itemType: string;
}

/** Buckets remembered full before the memory is cleared (a minute's worth of keys is far fewer). */
const FULL_MEMORY = 10_000;
/** A counter outlives its minute by an hour (DynamoDB's TTL deletes it later still). */
const COUNTER_SECONDS = 3600;

export class MinuteCounters {
  readonly #table: string;
  readonly #shape: MinuteCounterShape;
  readonly #perMinute: number;
  /** Buckets whose minute is known full in this container. */
  readonly #full = new Map<string, string>();

  constructor(table: string, shape: MinuteCounterShape, perMinute: number) {
    this.#table = table;
    this.#shape = shape;
    this.#perMinute = perMinute;
  }

  get perMinute(): number {
    return this.#perMinute;
  }

  /** The calendar minute (UTC) of a time, as its counters name it. */
  static minuteOf(at: Date): string {
    return at.toISOString().slice(0, 16);
  }

  isKnownFull(bucket: string, minute: string): boolean {
    return this.#full.get(bucket) === minute;
  }

  markFull(bucket: string, minute: string): void {
    if (this.#full.size > FULL_MEMORY) this.#full.clear();
    this.#full.set(bucket, minute);
  }

  /**
   * The counter's update, `amount` more (at most the ceiling) of the bucket's minute, refused
   * (ConditionalCheckFailed) when they would take it past the ceiling: alone or in a transaction.
   */
  countUpdate(bucket: string, minute: string, at: Date, amount = 1) {
    const { prefix, attribute, itemType } = this.#shape;
    return {
      TableName: this.#table,
      Key: { pk: `${prefix}#${bucket}#${minute}`, sk: 'RATE' },
      UpdateExpression: 'ADD #count :amount SET item_type = :type, expires_at = if_not_exists(expires_at, :expires)',
      ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
      ExpressionAttributeNames: { '#count': attribute },
      ExpressionAttributeValues: { ':amount': amount, ':room': this.#perMinute - amount, ':type': itemType, ':expires': epochSeconds(at.toISOString()) + COUNTER_SECONDS },
    };
  }
}
