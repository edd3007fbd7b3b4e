/**
 * The window a pull asks for, in slices (CONTRACT.md section 17): from the login's watermark less the
 * overlap (a new login: 24 hours before it was connected) to now, in slices of at most 24 hours, oldest
 * first, reaching back at most 7 days. Pure: the pull (pull.ts) moves the watermark past each slice
 * once all its enquiries are stored or recorded.
 */
import { CATCH_UP_MS, FIRST_WINDOW_MS, SLICE_MS } from './wire-names.ts';

export interface Slice {
  readonly from: Date;
  readonly to: Date;
}

export interface PullWindow {
  readonly slices: readonly Slice[];
  /** What lay before the 7 days' reach and is not asked for (named in a failing login's message). */
  readonly missed?: Slice;
}

export interface WindowInput {
  /** The watermark (`pulled_through`), absent until a first slice succeeded. */
  readonly watermark?: Date;
  readonly connectedAt: Date;
  readonly now: Date;
  readonly overlapMs: number;
}

export const pullWindow = ({ watermark, connectedAt, now, overlapMs }: WindowInput): PullWindow => {
  const wanted = watermark ? watermark.getTime() - overlapMs : connectedAt.getTime() - FIRST_WINDOW_MS;
  const reach = now.getTime() - CATCH_UP_MS;
  const start = Math.max(wanted, reach);
  const slices: Slice[] = [];
  for (let from = start; from < now.getTime(); from += SLICE_MS) slices.push({ from: new Date(from), to: new Date(Math.min(from + SLICE_MS, now.getTime())) });
  return { slices, ...(wanted < reach && { missed: { from: new Date(wanted), to: new Date(reach) } }) };
};

const IST_OFFSET_MS = (5 * 60 + 30) * 60 * 1000;

/** A time as India reads it (UTC+05:30, no daylight saving): `YYYY-MM-DD HH:MM:SS`. */
export const indiaTime = (at: Date): string => new Date(at.getTime() + IST_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');

/** A day as India reads it: `yyyyMMdd`. */
export const indiaDay = (at: Date): string => indiaTime(at).slice(0, 10).replaceAll('-', '');

/** `YYYY-MM-DD HH:MM:SS` (or `yyyyMMdd` with `HHmmss`) read as India time; undefined when it is not such a time. */
export const fromIndiaTime = (text: string | undefined): Date | undefined => {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})[ T]?(\d{2}):?(\d{2}):?(\d{2})$/.exec((text ?? '').trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi, s) - IST_OFFSET_MS;
  const at = new Date(utc);
  return Number.isNaN(utc) || new Date(utc + IST_OFFSET_MS).getUTCDate() !== d ? undefined : at;
};
