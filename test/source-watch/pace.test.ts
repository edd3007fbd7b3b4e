/**
 * The pace of a channel and its silence (CONTRACT.md section 16), pure: no clock but the one given.
 */
import {
  InvalidQuietHoursError,
  judge,
  medianGapMinutes,
  minutesOutsideQuietHours,
  paceOf,
  parseQuietHours,
  silenceThresholdMinutes,
  usualGapMinutes,
} from '../../shared/domain/source-watch.ts';

const at = (iso: string) => new Date(iso);
/** India time (UTC+05:30) as UTC. */
const ist = (local: string) => new Date(`${local}+05:30`);
const nightly = parseQuietHours('22:00-08:00');

describe('The median gap between a channel’s leads', () => {
  test('is the middle gap of an odd number of gaps, in exact minutes', () => {
    expect(medianGapMinutes([at('2026-11-01T10:00:00Z'), at('2026-11-01T10:01:30Z'), at('2026-11-01T10:11:30Z'), at('2026-11-01T10:12:00Z')])).toBe(1.5);
  });

  test('is the mean of the two middle gaps of an even number, whatever order the times come in', () => {
    expect(medianGapMinutes([at('2026-11-01T10:30:00Z'), at('2026-11-01T10:00:00Z'), at('2026-11-01T10:10:00Z'), at('2026-11-01T10:13:00Z'), at('2026-11-01T10:20:00Z')])).toBe(8.5);
  });

  test('is unknown below two leads', () => {
    expect(medianGapMinutes([at('2026-11-01T10:00:00Z')])).toBeNull();
    expect(medianGapMinutes([])).toBeNull();
  });

  test('shows rounded to one decimal as usual_gap_minutes', () => {
    expect(usualGapMinutes({ leads14d: 3, medianGapMinutes: 7.25 })).toBe(7.3);
    expect(usualGapMinutes({ leads14d: 1, medianGapMinutes: null })).toBeNull();
  });
});

describe('The 14-day pace', () => {
  test('counts only the leads of the last 14 days, and takes their gaps alone', () => {
    const now = at('2026-11-20T00:00:00Z');
    const pace = paceOf([at('2026-11-05T23:00:00Z'), at('2026-11-06T01:00:00Z'), at('2026-11-06T01:10:00Z'), at('2026-11-06T01:30:00Z')], now);
    expect(pace).toEqual({ leads14d: 3, medianGapMinutes: 15 });
  });
});

describe('Quiet hours', () => {
  test('are HH:MM-HH:MM India time, or none', () => {
    expect(parseQuietHours('22:00-08:00')).toEqual({ start: 22 * 60, end: 8 * 60 });
    expect(parseQuietHours('13:30-14:00')).toEqual({ start: 13 * 60 + 30, end: 14 * 60 });
    expect(parseQuietHours('none')).toBeNull();
    for (const bad of ['22-08', '24:00-08:00', '08:00-08:00', '', 'always']) expect(() => parseQuietHours(bad)).toThrow(InvalidQuietHoursError);
  });

  test('without them every minute counts', () => {
    expect(minutesOutsideQuietHours(at('2026-11-01T10:00:00Z'), at('2026-11-01T12:30:00Z'), null)).toBe(150);
  });

  test('a silence across midnight counts only the minutes outside 22:00-08:00', () => {
    // 20:00 to 10:00 India time: 2 hours before the quiet hours and 2 after.
    expect(minutesOutsideQuietHours(ist('2026-11-01T20:00:00'), ist('2026-11-02T10:00:00'), nightly)).toBe(240);
  });

  test('a silence that starts inside them counts from their end', () => {
    expect(minutesOutsideQuietHours(ist('2026-11-02T03:00:00'), ist('2026-11-02T09:15:00'), nightly)).toBe(75);
  });

  test('a silence across days counts each day’s 14 hours outside them', () => {
    expect(minutesOutsideQuietHours(ist('2026-11-01T08:00:00'), ist('2026-11-04T08:00:00'), nightly)).toBe(3 * 14 * 60);
  });

  test('quiet hours within a day count the same way', () => {
    expect(minutesOutsideQuietHours(ist('2026-11-01T12:00:00'), ist('2026-11-01T16:00:00'), parseQuietHours('13:00-14:00'))).toBe(180);
  });
});

describe('A channel’s state', () => {
  const settings = { minLeads: 3, minMinutes: 60, quietHours: null };
  const now = at('2026-11-20T12:00:00Z');

  test('is too_few below silenceMinLeads, however long its silence', () => {
    expect(judge({ leads14d: 2, medianGapMinutes: 1 }, at('2026-11-19T00:00:00Z'), now, settings).state).toBe('too_few');
  });

  test('turns silent past silenceMinMinutes when four median gaps are shorter', () => {
    expect(silenceThresholdMinutes({ leads14d: 5, medianGapMinutes: 10 }, settings)).toBe(60);
    expect(judge({ leads14d: 5, medianGapMinutes: 10 }, at('2026-11-20T11:00:00Z'), now, settings).state).toBe('watched');
    expect(judge({ leads14d: 5, medianGapMinutes: 10 }, at('2026-11-20T10:59:00Z'), now, settings).state).toBe('silent');
  });

  test('turns silent past four median gaps when they are longer than silenceMinMinutes', () => {
    expect(silenceThresholdMinutes({ leads14d: 5, medianGapMinutes: 30 }, settings)).toBe(120);
    expect(judge({ leads14d: 5, medianGapMinutes: 30 }, at('2026-11-20T10:00:00Z'), now, settings).state).toBe('watched');
    const judged = judge({ leads14d: 5, medianGapMinutes: 30 }, at('2026-11-20T09:59:00Z'), now, settings);
    expect([judged.state, judged.silentMinutes]).toEqual(['silent', 121]);
  });

  test('does not count its quiet hours towards the silence', () => {
    const quiet = { ...settings, quietHours: nightly };
    // Last lead 21:30 India time, now 08:20 the next morning: 30 + 20 minutes outside the quiet hours.
    expect(judge({ leads14d: 5, medianGapMinutes: 1 }, ist('2026-11-19T21:30:00'), ist('2026-11-20T08:20:00'), quiet)).toMatchObject({ state: 'watched', silentMinutes: 50 });
    expect(judge({ leads14d: 5, medianGapMinutes: 1 }, ist('2026-11-19T21:30:00'), ist('2026-11-20T08:31:00'), quiet)).toMatchObject({ state: 'silent', silentMinutes: 61 });
  });
});
