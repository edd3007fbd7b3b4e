/**
 * The quiet-source watch's counts (CONTRACT.md section 16), in the Leads table (its TTL ages them out);
 * times and lead ids only, never a person's data, so an erasure has nothing here to remove:
 *   CHANNELS#ALL / <account id>#<channel key>      one item per channel: account_id, source, sub_source,
 *        connection_id, last_lead_at, last_lead_id, recent_times (its newest lead times, packed),
 *        times_version, and while a silence is reported silent_since, silence_claimed_at,
 *        silence_notified (and resumed_by while its end is being sent)
 *   CHANNEL#<account id>#<channel key> / <newest time>#~<tag>   a bucket of older lead times (`times`,
 *        packed), written when the channel's item holds RECENT_TIMES_CAP of them
 *   CHANNEL#<account id>#<channel key> / <created_at>#<lead id>   one lead's time, as the watch counted
 *        before it wrote a channel once per batch (read until its TTL takes it)
 *   CHANNELS#SETTINGS / SETTINGS   the settings the last check judged with: min_leads, min_minutes,
 *        quiet_start and quiet_end (minutes after midnight, India time; null for none)
 * One partition lists every channel of every account, so the check is one bounded Query, and an
 * account's channels are a prefix of it. A stream batch's leads of one channel are one conditional
 * write of its item (read first: section 16's median needs every time, so they are appended, not
 * summed); each time is kept with a tag of its lead's id, so a stream record delivered twice counts
 * once. The channel key is the channel's three parts URI-encoded (`%` alone: none), so no part's `#`
 * can run into the next. None of these items is a lead: the Leads stream's consumers pass them by.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ChannelStore, CountedLead, StoredChannel } from '../domain/channel-watch.ts';
import type { Channel, SilenceSettings } from '../domain/source-watch.ts';
import { asServiceFailure } from './failures.ts';
import { orUnavailable, queryAll, TableStore } from './requests.ts';

const DIRECTORY_PK = 'CHANNELS#ALL';
/** The settings the watch judges with (minimum leads, minutes, quiet hours): one item, rewritten by each check. */
const SETTINGS_KEY = { pk: 'CHANNELS#SETTINGS', sk: 'SETTINGS' };
export const CHANNEL_SETTINGS_ITEM_TYPE = 'channel_settings';
const LEADS_PREFIX = 'CHANNEL#';
export const CHANNEL_ITEM_TYPE = 'channel';
/** A lead's own time item, as the watch wrote them before it counted a batch per channel: read until they expire. */
export const CHANNEL_LEAD_ITEM_TYPE = 'channel_lead';
export const CHANNEL_TIMES_ITEM_TYPE = 'channel_times';

/**
 * The most lead times one read takes (the newest): a channel above it (one lead every minute for 14
 * days) is counted and paced on its newest 20,000 leads, a median gap of seconds, far from any silence.
 */
export const LEAD_TIMES_CAP = 20_000;
/** Lead items outlive the 14-day pace by a day; a channel's item by 30 days after its last lead. */
const LEAD_ITEM_DAYS = 15;
const CHANNEL_ITEM_DAYS = 30;

/**
 * The lead times kept on a channel's item, appended by each batch's one write: at most this many (10
 * bytes each, so the item stays within one write unit); a batch that would pass it moves them to bucket
 * items of their own (one more write per this many leads).
 */
export const RECENT_TIMES_CAP = 48;
/** Times per bucket item: 800 bytes, one write unit with its keys. */
const BUCKET_TIMES_CAP = 80;
/** Reads and conditional writes of one channel's item before a batch gives up (Lambda hands it on again). */
const COUNT_ATTEMPTS = 5;

/** A counted lead among its channel's times: its time (ms) and a 32-bit tag of its id, so a lead given twice is one. */
interface TimeEntry {
  readonly at: number;
  readonly tag: number;
}
const ENTRY_BYTES = 10;

/** FNV-1a: two leads of one channel in the same millisecond are told apart by it (ids are not kept whole, for size). */
const tagOf = (leadId: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < leadId.length; i += 1) hash = Math.imul(hash ^ leadId.charCodeAt(i), 0x01000193);
  return hash >>> 0;
};
const entryOf = (createdAt: Date, leadId: string): TimeEntry => ({ at: createdAt.getTime(), tag: tagOf(leadId) });
const entryKey = (entry: TimeEntry) => `${entry.at}:${entry.tag}`;

/** 6 bytes of milliseconds (to the year 10889) and 4 of tag per entry, big-endian. */
const packTimes = (entries: readonly TimeEntry[]): Uint8Array => {
  const bytes = new Uint8Array(entries.length * ENTRY_BYTES);
  const view = new DataView(bytes.buffer);
  entries.forEach(({ at, tag }, i) => {
    view.setUint16(i * ENTRY_BYTES, Math.floor(at / 2 ** 32));
    view.setUint32(i * ENTRY_BYTES + 2, at % 2 ** 32);
    view.setUint32(i * ENTRY_BYTES + 6, tag);
  });
  return bytes;
};
const unpackTimes = (value: unknown): TimeEntry[] => {
  if (!(value instanceof Uint8Array)) return [];
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const entries: TimeEntry[] = [];
  for (let offset = 0; offset + ENTRY_BYTES <= value.byteLength; offset += ENTRY_BYTES) {
    entries.push({ at: view.getUint16(offset) * 2 ** 32 + view.getUint32(offset + 2), tag: view.getUint32(offset + 6) });
  }
  return entries;
};

const part = (value: string | null) => (value === null ? '%' : encodeURIComponent(value));
const channelKey = (channel: Channel) => `${part(channel.source)}#${part(channel.sub_source)}#${part(channel.connection_id)}`;
const directoryKey = (accountId: string, channel: Channel) => ({ pk: DIRECTORY_PK, sk: `${accountId}#${channelKey(channel)}` });
const leadsPartition = (accountId: string, channel: Channel) => `${LEADS_PREFIX}${accountId}#${channelKey(channel)}`;
const expiresAt = (time: Date, days: number) => Math.floor(time.getTime() / 1000) + days * 24 * 60 * 60;

const isConditionFailure = (error: unknown) => error instanceof Error && error.name === 'ConditionalCheckFailedException';

const storedChannelOf = (item: Record<string, any>): StoredChannel => ({
  accountId: String(item.account_id),
  channel: { source: String(item.source), sub_source: item.sub_source ?? null, connection_id: item.connection_id ?? null },
  lastLeadAt: new Date(String(item.last_lead_at)),
  lastLeadId: String(item.last_lead_id),
  ...(item.silent_since !== undefined && {
    silence: {
      since: new Date(String(item.silent_since)),
      claimedAt: new Date(String(item.silence_claimed_at)),
      notified: item.silence_notified === true,
      ...(item.resumed_by !== undefined && { resumedBy: String(item.resumed_by) }),
    },
  }),
});

/** The reads alone (`admin sources`, the admin API): all the admin function carries of the watch. */
export class DynamoDbChannelReader extends TableStore implements Pick<ChannelStore, 'channels' | 'leadTimes' | 'settings'> {
  async settings(): Promise<SilenceSettings | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: SETTINGS_KEY })));
    if (!Item) return undefined;
    return {
      minLeads: Number(Item.min_leads),
      minMinutes: Number(Item.min_minutes),
      quietHours: Item.quiet_start === null || Item.quiet_start === undefined ? null : { start: Number(Item.quiet_start), end: Number(Item.quiet_end) },
    };
  }

  async *channels(since: Date, accountId?: string): AsyncIterable<StoredChannel> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: accountId === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :account)',
      FilterExpression: 'last_lead_at > :since',
      ExpressionAttributeValues: { ':pk': DIRECTORY_PK, ':since': since.toISOString(), ...(accountId !== undefined && { ':account': `${accountId}#` }) },
    });
    for (const item of items) yield storedChannelOf(item);
  }

  async leadTimes(accountId: string, channel: Channel, since: Date): Promise<Date[]> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: directoryKey(accountId, channel), ProjectionExpression: 'recent_times' })));
    // Keyed by time and tag: a lead in two places (a batch retried after its times went to a bucket) is one lead.
    const entries = new Map<string, number>();
    const add = (entry: TimeEntry) => void (entry.at > since.getTime() && entries.set(entryKey(entry), entry.at));
    unpackTimes(Item?.recent_times).forEach(add);
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await orUnavailable(() =>
        this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND sk > :since',
            ExpressionAttributeValues: { ':pk': leadsPartition(accountId, channel), ':since': since.toISOString() },
            ProjectionExpression: 'sk, item_type, times',
            ScanIndexForward: false,
            ExclusiveStartKey,
          }),
        ),
      );
      for (const item of page.Items ?? []) {
        if (item.item_type === CHANNEL_TIMES_ITEM_TYPE) unpackTimes(item.times).forEach(add);
        else {
          // A lead counted on an item of its own (before the watch counted a batch per channel): `<created_at>#<lead id>`.
          const sk = String(item.sk);
          const cut = sk.indexOf('#');
          add(entryOf(new Date(sk.slice(0, cut)), sk.slice(cut + 1)));
        }
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && entries.size < LEAD_TIMES_CAP);
    return [...entries.values()]
      .sort((a, b) => a - b)
      .slice(-LEAD_TIMES_CAP)
      .map((at) => new Date(at));
  }
}

export class DynamoDbChannelStore extends DynamoDbChannelReader implements ChannelStore {
  async saveSettings(settings: SilenceSettings): Promise<void> {
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...SETTINGS_KEY,
            item_type: CHANNEL_SETTINGS_ITEM_TYPE,
            min_leads: settings.minLeads,
            min_minutes: settings.minMinutes,
            quiet_start: settings.quietHours?.start ?? null,
            quiet_end: settings.quietHours?.end ?? null,
          },
        }),
      ),
    );
  }

  async countLeads(leads: readonly CountedLead[]): Promise<StoredChannel> {
    const { accountId, channel } = leads[0]!;
    const key = directoryKey(accountId, channel);
    const newest = leads.reduce((a, b) => (b.createdAt.getTime() > a.createdAt.getTime() ? b : a));
    for (let attempt = 1; ; attempt += 1) {
      const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true })));
      const recent = unpackTimes(Item?.recent_times);
      const known = new Set(recent.map(entryKey));
      const fresh: TimeEntry[] = [];
      for (const lead of leads) {
        const entry = entryOf(lead.createdAt, lead.leadId);
        if (known.has(entryKey(entry))) continue;
        known.add(entryKey(entry));
        fresh.push(entry);
      }
      const lastAt = Item?.last_lead_at === undefined ? undefined : String(Item.last_lead_at);
      // The newest lead only moves the channel's last lead (an older one counted late leaves it alone).
      const moves = lastAt === undefined || lastAt < newest.createdAt.toISOString();
      // A retried batch, all of it counted already: nothing to write.
      if (Item && fresh.length === 0 && !moves) return storedChannelOf(Item);
      let times = [...recent, ...fresh].sort((a, b) => a.at - b.at);
      if (times.length > RECENT_TIMES_CAP) {
        // Full: the times go to bucket items of their own, and the channel's item starts a new list.
        for (let i = 0; i < times.length; i += BUCKET_TIMES_CAP) await this.#putBucket(accountId, channel, times.slice(i, i + BUCKET_TIMES_CAP));
        times = [];
      }
      const values: Record<string, unknown> = {
        ':type': CHANNEL_ITEM_TYPE,
        ':account': accountId,
        ':source': channel.source,
        ':sub': channel.sub_source,
        ':connection': channel.connection_id,
        ':version': Number(Item?.times_version ?? 0) + 1,
        ...(moves && { ':at': newest.createdAt.toISOString(), ':id': newest.leadId, ':expires': expiresAt(newest.createdAt, CHANNEL_ITEM_DAYS) }),
        ...(times.length > 0 && { ':times': packTimes(times) }),
      };
      // Unchanged since it was read (another shard's batch of the same channel may be counting): else read again.
      let condition = 'attribute_not_exists(pk)';
      if (Item?.times_version !== undefined) {
        condition = 'times_version = :read';
        values[':read'] = Item.times_version;
      } else if (Item) {
        // An item the per-lead counting wrote, before its first batch.
        condition = 'attribute_not_exists(times_version) AND last_lead_at = :readLast';
        values[':readLast'] = lastAt;
      }
      const sets = [
        'item_type = :type',
        'account_id = :account',
        '#source = :source',
        'sub_source = :sub',
        'connection_id = :connection',
        'times_version = :version',
        ...(moves ? ['last_lead_at = :at', 'last_lead_id = :id', 'expires_at = :expires'] : []),
        ...(times.length > 0 ? ['recent_times = :times'] : []),
      ];
      try {
        const { Attributes } = await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: `SET ${sets.join(', ')}${times.length > 0 ? '' : ' REMOVE recent_times'}`,
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#source': 'source' },
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return storedChannelOf(Attributes!);
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= COUNT_ATTEMPTS) throw asServiceFailure(error);
      }
    }
  }

  async #putBucket(accountId: string, channel: Channel, times: readonly TimeEntry[]): Promise<void> {
    const last = times[times.length - 1]!;
    const packed = packTimes(times);
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          // Keyed by its newest time (a read from `since` finds every bucket holding a later time) and
          // its content: a lead counted again after its bucket was written (a retried batch) goes into
          // another bucket, which must not overwrite the first.
          Item: {
            pk: leadsPartition(accountId, channel),
            sk: `${new Date(last.at).toISOString()}#~${tagOf(Buffer.from(packed).toString('latin1')).toString(36)}`,
            item_type: CHANNEL_TIMES_ITEM_TYPE,
            times: packed,
            expires_at: expiresAt(new Date(last.at), LEAD_ITEM_DAYS),
          },
        }),
      ),
    );
  }

  claimSilence(stored: StoredChannel, now: Date, staleBefore: Date): Promise<boolean> {
    return this.#conditional(stored, {
      UpdateExpression: 'SET silent_since = :since, silence_claimed_at = :now, silence_notified = :false REMOVE resumed_by',
      // No newer lead, and no silence marked, unless a claim of this one that was never sent and has gone stale.
      ConditionExpression:
        'last_lead_at = :since AND (attribute_not_exists(silent_since) OR (silent_since = :since AND silence_notified = :false AND silence_claimed_at < :stale))',
      ExpressionAttributeValues: { ':since': stored.lastLeadAt.toISOString(), ':now': now.toISOString(), ':false': false, ':stale': staleBefore.toISOString() },
    });
  }

  async confirmSilence(stored: StoredChannel, claimedAt: Date): Promise<void> {
    await this.#conditional(stored, {
      UpdateExpression: 'SET silence_notified = :true',
      ConditionExpression: 'silent_since = :since AND silence_claimed_at = :claimed',
      ExpressionAttributeValues: { ':true': true, ':since': stored.lastLeadAt.toISOString(), ':claimed': claimedAt.toISOString() },
    });
  }

  async releaseSilence(stored: StoredChannel, claimedAt: Date): Promise<void> {
    await this.#conditional(stored, {
      UpdateExpression: 'REMOVE silent_since, silence_claimed_at, silence_notified',
      ConditionExpression: 'silent_since = :since AND silence_claimed_at = :claimed',
      ExpressionAttributeValues: { ':since': stored.lastLeadAt.toISOString(), ':claimed': claimedAt.toISOString() },
    });
  }

  claimResume(stored: StoredChannel, leadId: string): Promise<boolean> {
    return this.#conditional(stored, {
      UpdateExpression: 'SET resumed_by = :lead',
      ConditionExpression: 'silent_since = :since AND (attribute_not_exists(resumed_by) OR resumed_by = :lead)',
      ExpressionAttributeValues: { ':lead': leadId, ':since': stored.silence!.since.toISOString() },
    });
  }

  async endSilence(stored: StoredChannel, leadId: string): Promise<void> {
    await this.#conditional(stored, {
      UpdateExpression: 'REMOVE silent_since, silence_claimed_at, silence_notified, resumed_by',
      ConditionExpression: 'resumed_by = :lead',
      ExpressionAttributeValues: { ':lead': leadId },
    });
  }

  /** A conditional update of the channel's item: false when its condition did not hold. */
  async #conditional(
    stored: StoredChannel,
    update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.table, Key: directoryKey(stored.accountId, stored.channel), ...update }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw asServiceFailure(error);
    }
  }
}
