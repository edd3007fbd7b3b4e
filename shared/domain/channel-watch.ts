/**
 * The quiet-source watch at work (CONTRACT.md section 16): counting each stored lead on its channel,
 * the check that reports a channel gone silent once per silence, the `Source Resumed` of its next lead,
 * and the listing of an account's channels. The counts' store and the bus are ports; the clock is given.
 */
import {
  channelView,
  judge,
  PACE_WINDOW_MS,
  paceOf,
  parseQuietHours,
  sourceResumedEvent,
  sourceSilentEvent,
  usualGapMinutes,
  type Channel,
  type ChannelState,
  type SilenceSettings,
  type SourceEventPublisher,
} from './source-watch.ts';

/** A silence reported, or being reported: the last lead's time before it, and when a check claimed it. */
export interface ChannelSilence {
  readonly since: Date;
  readonly claimedAt: Date;
  readonly notified: boolean;
  /** The lead whose `Source Resumed` is being sent, when one is. */
  readonly resumedBy?: string;
}

/** A channel as its store keeps it: who it is, its last lead, its silence. Times and ids only, never a person. */
export interface StoredChannel {
  readonly accountId: string;
  readonly channel: Channel;
  readonly lastLeadAt: Date;
  readonly lastLeadId: string;
  readonly silence?: ChannelSilence;
}

/** A lead as the watch counts it: the stored lead's id, time and channel, nothing else. */
export interface CountedLead {
  readonly accountId: string;
  readonly channel: Channel;
  readonly leadId: string;
  readonly createdAt: Date;
}

export interface ChannelStore {
  /**
   * Counts leads of one channel (one stream batch's), each once however often it is given, and moves
   * the channel's last lead to the newest of them when it is newer. Answers the channel as stored
   * afterwards. At most one write of the channel in the common case: the watch's cost per lead.
   */
  countLeads(leads: readonly CountedLead[]): Promise<StoredChannel>;
  /** The channels whose last lead is after `since`: of one account, or of every account. */
  channels(since: Date, accountId?: string): AsyncIterable<StoredChannel>;
  /** The channel's lead times after `since` (a bounded read: at most the store's cap, the newest). */
  leadTimes(accountId: string, channel: Channel, since: Date): Promise<Date[]>;
  /**
   * Marks the channel silent since its last lead, unless a silence is already marked (a claim older
   * than `staleBefore` that was never notified may be taken over) or a newer lead came: true for the
   * one caller that marked it.
   */
  claimSilence(channel: StoredChannel, now: Date, staleBefore: Date): Promise<boolean>;
  /** The claimed silence's event was sent. */
  confirmSilence(channel: StoredChannel, claimedAt: Date): Promise<void>;
  /** The claimed silence's event could not be sent: the next check tries again. */
  releaseSilence(channel: StoredChannel, claimedAt: Date): Promise<void>;
  /**
   * Keeps the settings the watch judges with, where every listing reads them (`admin sources` from any
   * shell answers as the admin API: CONTRACT.md section 19).
   */
  saveSettings(settings: SilenceSettings): Promise<void>;
  /** The settings the watch last kept; undefined before its first check. */
  settings(): Promise<SilenceSettings | undefined>;
  /** Claims the silence's end for `leadId`: true for one lead only (again for the same lead, when retried). */
  claimResume(channel: StoredChannel, leadId: string): Promise<boolean>;
  /** The `Source Resumed` of `leadId` was sent: the silence is over. */
  endSilence(channel: StoredChannel, leadId: string): Promise<void>;
}

/** One row of `admin sources` and `GET .../sources`. */
export interface ChannelRow {
  readonly source: string;
  readonly sub_source: string | null;
  readonly connection_id: string | null;
  readonly leads_14d: number;
  readonly last_lead_at: string;
  readonly usual_gap_minutes: number | null;
  readonly state: ChannelState;
}

/** A channel's leads of a batch that were not counted, and why. */
export interface CountFailure {
  readonly leads: readonly CountedLead[];
  readonly error: unknown;
}

export interface CheckSummary {
  /** Silent channels per account after the pass (accounts with a watched channel and none silent count 0). */
  readonly silentByAccount: ReadonlyMap<string, number>;
  readonly eventsSent: number;
  /** Channels whose event could not be sent (retried by the next check). */
  readonly failures: number;
}

/** A check that claimed a silence and never confirmed it (it stopped): after this, another check sends it. */
export const STALE_CLAIM_MS = 5 * 60 * 1000;

/** ISO-8601 UTC to the millisecond, as lead times are stored. */
const iso = (time: Date) => time.toISOString();

export interface ChannelWatchDependencies {
  readonly store: ChannelStore;
  readonly events: SourceEventPublisher;
  readonly settings: SilenceSettings;
  /** An account's own quiet hours (`HH:MM-HH:MM` or `none`), undefined for the settings'; read once per account per check. */
  readonly accountQuietHours?: (accountId: string) => Promise<string | undefined>;
  readonly now: () => Date;
  /** A channel whose event could not be sent; the pass goes on with the others. */
  readonly onFailure?: (error: unknown, channel: StoredChannel) => void;
}

export class ChannelWatch {
  private readonly deps: ChannelWatchDependencies;

  constructor(deps: ChannelWatchDependencies) {
    this.deps = deps;
  }

  /**
   * Counts stored leads, each channel's together (one write of it per batch); the newest lead on a
   * silent channel ends its silence with one `Source Resumed`. A channel that could not be counted is
   * answered with its leads (the others are counted): its batch is handed on again, and counting the
   * same lead again changes nothing.
   */
  async count(leads: readonly CountedLead[]): Promise<CountFailure[]> {
    const { store, events } = this.deps;
    const byChannel = new Map<string, CountedLead[]>();
    for (const lead of leads) {
      const key = JSON.stringify([lead.accountId, lead.channel.source, lead.channel.sub_source, lead.channel.connection_id]);
      byChannel.set(key, [...(byChannel.get(key) ?? []), lead]);
    }
    const failures: CountFailure[] = [];
    for (const channelLeads of byChannel.values()) {
      try {
        const stored = await store.countLeads(channelLeads);
        const silence = stored.silence;
        const last = channelLeads.find((lead) => lead.leadId === stored.lastLeadId);
        // Only the lead that is now the channel's last, and came after the silence began.
        if (!silence || !last || last.createdAt.getTime() <= silence.since.getTime()) continue;
        if (!(await store.claimResume(stored, last.leadId))) continue;
        await events.publish({
          detailType: sourceResumedEvent.detailType,
          detail: { account_id: last.accountId, channel: channelView(last.channel), silent_since: iso(silence.since), resumed_at: iso(last.createdAt) },
        });
        await store.endSilence(stored, last.leadId);
      } catch (error) {
        failures.push({ leads: channelLeads, error });
      }
    }
    return failures;
  }

  /** One pass over the channels of every account: a `Source Silent` for each channel newly silent. */
  async check(): Promise<CheckSummary> {
    const { store, events, onFailure, accountQuietHours } = this.deps;
    const now = this.deps.now();
    // The settings of this pass, kept for the listings that do not run with the stack's (the admin CLI).
    await store.saveSettings(this.deps.settings);
    const since = new Date(now.getTime() - PACE_WINDOW_MS);
    const silentByAccount = new Map<string, number>();
    const accountSettings = new Map<string, Promise<SilenceSettings>>();
    const settingsOf = (accountId: string) => {
      if (!accountSettings.has(accountId)) {
        accountSettings.set(accountId, (async () => withQuietHours(this.deps.settings, await accountQuietHours?.(accountId)))());
      }
      return accountSettings.get(accountId)!;
    };
    let eventsSent = 0;
    let failures = 0;
    for await (const stored of store.channels(since)) {
      if (!silentByAccount.has(stored.accountId)) silentByAccount.set(stored.accountId, 0);
      const reported = stored.silence && stored.silence.since.getTime() === stored.lastLeadAt.getTime();
      if (reported && (stored.silence!.notified || now.getTime() - stored.silence!.claimedAt.getTime() < STALE_CLAIM_MS)) {
        silentByAccount.set(stored.accountId, silentByAccount.get(stored.accountId)! + 1);
        continue;
      }
      const settings = await settingsOf(stored.accountId);
      // Below the least silence no pace can make it one: no read of its lead times.
      const quick = judge({ leads14d: Number.MAX_SAFE_INTEGER, medianGapMinutes: null }, stored.lastLeadAt, now, settings);
      if (quick.state !== 'silent') continue;
      const judgement = judge(paceOf(await store.leadTimes(stored.accountId, stored.channel, since), now), stored.lastLeadAt, now, settings);
      if (judgement.state !== 'silent') continue;
      if (!(await store.claimSilence(stored, now, new Date(now.getTime() - STALE_CLAIM_MS)))) continue;
      try {
        await events.publish({
          detailType: sourceSilentEvent.detailType,
          detail: {
            account_id: stored.accountId,
            channel: channelView(stored.channel),
            last_lead_at: iso(stored.lastLeadAt),
            silent_minutes: Math.floor(judgement.silentMinutes),
            usual_gap_minutes: usualGapMinutes(judgement.pace),
            leads_14d: judgement.pace.leads14d,
          },
        });
      } catch (error) {
        failures += 1;
        onFailure?.(error, stored);
        await store.releaseSilence(stored, now);
        continue;
      }
      await store.confirmSilence(stored, now);
      eventsSent += 1;
      silentByAccount.set(stored.accountId, silentByAccount.get(stored.accountId)! + 1);
    }
    return { silentByAccount, eventsSent, failures };
  }

  /** Keeps the watch's settings for the listings (as each check does): npm start calls it at its start. */
  saveSettings(): Promise<void> {
    return this.deps.store.saveSettings(this.deps.settings);
  }

  /** An account's channels with a lead in the last 14 days, most recent first. */
  list(accountId: string): Promise<ChannelRow[]> {
    return channelRows(this.deps, accountId);
  }
}

/** The settings with an account's own quiet hours, when it has them. */
export const withQuietHours = (settings: SilenceSettings, accountQuietHours: string | undefined): SilenceSettings =>
  accountQuietHours === undefined ? settings : { ...settings, quietHours: parseQuietHours(accountQuietHours) };

/** What listing an account's channels needs: their store, the settings, the clock. */
export interface ChannelListing extends Pick<ChannelWatchDependencies, 'settings' | 'now'> {
  readonly store: ChannelReader;
}

/** The store's reads: what a listing needs. */
export type ChannelReader = Pick<ChannelStore, 'channels' | 'leadTimes' | 'settings'>;

/** `admin sources`: an account's channels with a lead in the last 14 days, most recent first. */
export const channelRows = async ({ store, settings: stackSettings, now: clock }: ChannelListing, accountId: string, accountQuietHours?: string): Promise<ChannelRow[]> => {
  const settings = withQuietHours(stackSettings, accountQuietHours);
  const now = clock();
  const since = new Date(now.getTime() - PACE_WINDOW_MS);
  const rows: Array<ChannelRow & { readonly at: number }> = [];
  for await (const stored of store.channels(since, accountId)) {
    const judgement = judge(paceOf(await store.leadTimes(accountId, stored.channel, since), now), stored.lastLeadAt, now, settings);
    const marked = stored.silence !== undefined && stored.silence.since.getTime() === stored.lastLeadAt.getTime();
    rows.push({
      source: stored.channel.source,
      sub_source: stored.channel.sub_source,
      connection_id: stored.channel.connection_id,
      leads_14d: judgement.pace.leads14d,
      last_lead_at: iso(stored.lastLeadAt),
      usual_gap_minutes: usualGapMinutes(judgement.pace),
      state: judgement.state === 'too_few' ? 'too_few' : marked ? 'silent' : judgement.state,
      at: stored.lastLeadAt.getTime(),
    });
  }
  return rows.sort((a, b) => b.at - a.at).map(({ at: _at, ...row }) => row);
};
