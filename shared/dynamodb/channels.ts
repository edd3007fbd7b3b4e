/**
 * The quiet-source watch's counts (CONTRACT.md section 16), in the Leads table (its TTL ages them out);
 * times and lead ids only, never a person's data, so an erasure has nothing here to remove:
 *   CHANNELS#ALL / <account id>#<channel key>      one item per channel: account_id, source, sub_source,
 *        connection_id, last_lead_at, last_lead_id, and while a silence is reported silent_since,
 *        silence_claimed_at, silence_notified (and resumed_by while its end is being sent)
 *   CHANNEL#<account id>#<channel key> / <created_at>#<lead id>   one item per lead counted (its time)
 *   CHANNELS#SETTINGS / SETTINGS   the settings the last check judged with: min_leads, min_minutes,
 *        quiet_start and quiet_end (minutes after midnight, India time; null for none)
 * One partition lists every channel of every account, so the check is one bounded Query, and an
 * account's channels are a prefix of it. A lead's item is keyed by its id, so a stream record delivered
 * twice counts once. The channel key is the channel's three parts URI-encoded (`%` alone: none), so no
 * part's `#` can run into the next. Neither item is a lead: the Leads stream's consumers pass them by.
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
export const CHANNEL_LEAD_ITEM_TYPE = 'channel_lead';

/**
 * The most lead times one read takes (the newest): a channel above it (one lead every minute for 14
 * days) is counted and paced on its newest 20,000 leads, a median gap of seconds, far from any silence.
 */
export const LEAD_TIMES_CAP = 20_000;
/** Lead items outlive the 14-day pace by a day; a channel's item by 30 days after its last lead. */
const LEAD_ITEM_DAYS = 15;
const CHANNEL_ITEM_DAYS = 30;

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
    const times: Date[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await orUnavailable(() =>
        this.db.send(
          new QueryCommand({
            TableName: this.table,
            KeyConditionExpression: 'pk = :pk AND sk > :since',
            ExpressionAttributeValues: { ':pk': leadsPartition(accountId, channel), ':since': since.toISOString() },
            ProjectionExpression: 'sk',
            ScanIndexForward: false,
            Limit: LEAD_TIMES_CAP - times.length,
            ExclusiveStartKey,
          }),
        ),
      );
      for (const item of page.Items ?? []) times.push(new Date(String(item.sk).slice(0, String(item.sk).indexOf('#'))));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey && times.length < LEAD_TIMES_CAP);
    return times.reverse();
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

  async countLead(lead: CountedLead): Promise<StoredChannel> {
    const at = lead.createdAt.toISOString();
    await orUnavailable(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: leadsPartition(lead.accountId, lead.channel), sk: `${at}#${lead.leadId}`, item_type: CHANNEL_LEAD_ITEM_TYPE, expires_at: expiresAt(lead.createdAt, LEAD_ITEM_DAYS) },
        }),
      ),
    );
    const key = directoryKey(lead.accountId, lead.channel);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression:
            'SET item_type = :type, account_id = :account, #source = :source, sub_source = :sub, connection_id = :connection, last_lead_at = :at, last_lead_id = :id, expires_at = :expires',
          // The newest lead only; the same lead again (a retried record) passes, so its silence's end is not lost.
          ConditionExpression: 'attribute_not_exists(last_lead_at) OR last_lead_at < :at OR last_lead_id = :id',
          ExpressionAttributeNames: { '#source': 'source' },
          ExpressionAttributeValues: {
            ':type': CHANNEL_ITEM_TYPE,
            ':account': lead.accountId,
            ':source': lead.channel.source,
            ':sub': lead.channel.sub_source,
            ':connection': lead.channel.connection_id,
            ':at': at,
            ':id': lead.leadId,
            ':expires': expiresAt(lead.createdAt, CHANNEL_ITEM_DAYS),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return storedChannelOf(Attributes!);
    } catch (error) {
      if (!isConditionFailure(error)) throw asServiceFailure(error);
      // An older lead than the channel's last, counted late: the channel as it is.
      const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true })));
      return storedChannelOf(Item!);
    }
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
