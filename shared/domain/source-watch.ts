/**
 * A source gone quiet, noticed (CONTRACT.md section 16): the pace of each channel of an account (its
 * leads of the last 14 days and the median gap between them), its silence (minutes since its last lead,
 * outside the account's quiet hours, India time) and when that silence is worth a `Source Silent` event.
 * Pure: times in, judgements out; the store of counts is a port (ChannelStore) and the clock is given.
 */
/** What an account's leads came through: source and sub source as stored, and the connection when there is one. */
export interface Channel {
  readonly source: string;
  readonly sub_source: string | null;
  /** The connection's id (a Meta page, a Google form, a call number); null for a lead that came through none. */
  readonly connection_id: string | null;
}

/** The watch's settings: the stack's (silenceMinLeads, silenceMinMinutes, silenceQuietHours) or npm start's environment. */
export interface SilenceSettings {
  /** Leads in 14 days from which a channel is watched. */
  readonly minLeads: number;
  /** The least silence, in minutes outside quiet hours, that can be a silence. */
  readonly minMinutes: number;
  /** Quiet hours, India time; null for none. */
  readonly quietHours: QuietHours | null;
}

/** A daily window of minutes after midnight, India time; `start > end` crosses midnight. */
export interface QuietHours {
  readonly start: number;
  readonly end: number;
}

export const PACE_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;
export const DEFAULT_QUIET_HOURS = '22:00-08:00';
export const defaultSilenceSettings = { minLeads: 10, minMinutes: 360, quietHours: DEFAULT_QUIET_HOURS } as const;

/** India has one offset all year (UTC+05:30, no daylight saving). */
const INDIA_OFFSET_MS = 330 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

/** A setting, not a request: the stack's synth or npm start's start-up refuses it. */
export class InvalidQuietHoursError extends Error {
  constructor(value: string) {
    super(`silenceQuietHours must be HH:MM-HH:MM (India time, two different times) or none; got ${JSON.stringify(value)}`);
  }
}

/** `22:00-08:00` or `none` (case-insensitive); anything else is refused. */
export const parseQuietHours = (text: string): QuietHours | null => {
  const value = text.trim();
  if (value.toLowerCase() === 'none') return null;
  const match = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/.exec(value);
  if (!match) throw new InvalidQuietHoursError(text);
  const [, sh, sm, eh, em] = match.map(Number) as [number, number, number, number, number];
  const start = sh * 60 + sm;
  const end = eh * 60 + em;
  if (start === end) throw new InvalidQuietHoursError(text);
  return { start, end };
};

/** The quiet windows (UTC milliseconds) of the India day that starts at `dayStart` (India midnight, in UTC ms). */
const windowsOfDay = (dayStart: number, quiet: QuietHours): Array<[number, number]> =>
  quiet.start < quiet.end
    ? [[dayStart + quiet.start * MINUTE_MS, dayStart + quiet.end * MINUTE_MS]]
    : // Across midnight: from `start` to the next day's `end` (the day before's window covers this day's early hours).
      [[dayStart + quiet.start * MINUTE_MS, dayStart + DAY_MS + quiet.end * MINUTE_MS]];

/** Minutes from `from` to `to` outside the quiet hours (all of them when there are none). */
export const minutesOutsideQuietHours = (from: Date, to: Date, quiet: QuietHours | null): number => {
  const start = from.getTime();
  const end = to.getTime();
  if (end <= start) return 0;
  let quietMs = 0;
  if (quiet) {
    // India midnights, from the day before `from` (its window may reach past midnight) to the day of `to`.
    const firstDay = Math.floor((start + INDIA_OFFSET_MS) / DAY_MS) * DAY_MS - INDIA_OFFSET_MS - DAY_MS;
    for (let day = firstDay; day <= end; day += DAY_MS) {
      for (const [a, b] of windowsOfDay(day, quiet)) quietMs += Math.max(0, Math.min(b, end) - Math.max(a, start));
    }
  }
  return (end - start - quietMs) / MINUTE_MS;
};

/** The median of the gaps between consecutive leads, in minutes (exact); null below two leads. */
export const medianGapMinutes = (leadTimes: readonly Date[]): number | null => {
  const times = leadTimes.map((time) => time.getTime()).sort((a, b) => a - b);
  if (times.length < 2) return null;
  const gaps = times.slice(1).map((time, i) => time - times[i]!).sort((a, b) => a - b);
  const middle = Math.floor(gaps.length / 2);
  const median = gaps.length % 2 === 1 ? gaps[middle]! : (gaps[middle - 1]! + gaps[middle]!) / 2;
  return median / MINUTE_MS;
};

/** A channel's pace at `now`: its leads of the last 14 days and their median gap. */
export interface Pace {
  readonly leads14d: number;
  readonly medianGapMinutes: number | null;
}

export const paceOf = (leadTimes: readonly Date[], now: Date): Pace => {
  const since = now.getTime() - PACE_WINDOW_MS;
  const recent = leadTimes.filter((time) => time.getTime() > since && time.getTime() <= now.getTime());
  return { leads14d: recent.length, medianGapMinutes: medianGapMinutes(recent) };
};

/** The silence past which a watched channel is silent: the larger of the settings' least and 4 times its median gap. */
export const silenceThresholdMinutes = (pace: Pace, settings: Pick<SilenceSettings, 'minMinutes'>): number =>
  Math.max(settings.minMinutes, 4 * (pace.medianGapMinutes ?? 0));

export type ChannelState = 'watched' | 'silent' | 'too_few';

/** How the watch judges a channel at `now`. */
export interface Judgement {
  readonly state: ChannelState;
  readonly silentMinutes: number;
  readonly pace: Pace;
}

export const judge = (pace: Pace, lastLeadAt: Date, now: Date, settings: SilenceSettings): Judgement => {
  const silentMinutes = minutesOutsideQuietHours(lastLeadAt, now, settings.quietHours);
  if (pace.leads14d < settings.minLeads) return { state: 'too_few', silentMinutes, pace };
  return { state: silentMinutes > silenceThresholdMinutes(pace, settings) ? 'silent' : 'watched', silentMinutes, pace };
};

/** `usual_gap_minutes`: the median gap rounded to one decimal. */
export const usualGapMinutes = (pace: Pace): number | null => (pace.medianGapMinutes === null ? null : Math.round(pace.medianGapMinutes * 10) / 10);

/** A channel as its events and listings name it: `connection_id` left out when it has none. */
export const channelView = (channel: Channel) => ({
  source: channel.source,
  sub_source: channel.sub_source,
  ...(channel.connection_id !== null && { connection_id: channel.connection_id }),
});

/** The `detail` of a `Source Silent` event. */
export interface SourceSilentDetail {
  readonly account_id: string;
  readonly channel: ReturnType<typeof channelView>;
  readonly last_lead_at: string;
  readonly silent_minutes: number;
  readonly usual_gap_minutes: number | null;
  readonly leads_14d: number;
}

/** The `detail` of a `Source Resumed` event. */
export interface SourceResumedDetail {
  readonly account_id: string;
  readonly channel: ReturnType<typeof channelView>;
  readonly silent_since: string;
  readonly resumed_at: string;
}

/** What subscribers match on: source `crm.lead-intake`, like Lead Created. */
export const sourceSilentEvent = { source: 'crm.lead-intake', detailType: 'Source Silent' } as const;
export const sourceResumedEvent = { source: 'crm.lead-intake', detailType: 'Source Resumed' } as const;

export type SourceWatchEvent =
  | { readonly detailType: typeof sourceSilentEvent.detailType; readonly detail: SourceSilentDetail }
  | { readonly detailType: typeof sourceResumedEvent.detailType; readonly detail: SourceResumedDetail };

/** Puts an event on section 9's bus (EventBridge in AWS, the local webhook under npm start); throws when it could not. */
export interface SourceEventPublisher {
  publish(event: SourceWatchEvent): Promise<void>;
}
