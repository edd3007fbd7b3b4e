/**
 * The windows a pull asks for (CONTRACT.md section 17): 24-hour slices, oldest first, from the watermark
 * less the overlap (a new login: 24 hours before it was connected) to now, never further back than 7
 * days; India time as the portals write it. And the portals' two lists (descriptors, readers) agree.
 */
import { describe, expect, it } from '@jest/globals';
import { portalDescriptors } from '../../shared/portals/names.ts';
import { portals } from '../../shared/portals/registry.ts';
import { fromIndiaTime, indiaDay, indiaTime, pullWindow } from '../../shared/pulled/windows.ts';

const HOUR = 3600_000;
const now = new Date('2026-12-07T12:00:00.000Z');
const iso = (slices: readonly { from: Date; to: Date }[]) => slices.map(({ from, to }) => [from.toISOString(), to.toISOString()]);

describe('a pull’s window', () => {
  it('of a new login starts 24 hours before it was connected, in one slice', () => {
    expect(iso(pullWindow({ connectedAt: now, now, overlapMs: 15 * 60_000 }).slices)).toEqual([['2026-12-06T12:00:00.000Z', '2026-12-07T12:00:00.000Z']]);
  });

  it('starts at the watermark less the overlap', () => {
    const window = pullWindow({ watermark: new Date(now.getTime() - HOUR), connectedAt: new Date(0), now, overlapMs: 15 * 60_000 });
    expect(iso(window.slices)).toEqual([['2026-12-07T10:45:00.000Z', '2026-12-07T12:00:00.000Z']]);
    expect(window.missed).toBeUndefined();
  });

  it('over 24 hours is sliced into 24 hours each, oldest first', () => {
    const window = pullWindow({ watermark: new Date(now.getTime() - 50 * HOUR), connectedAt: new Date(0), now, overlapMs: 0 });
    expect(iso(window.slices)).toEqual([
      ['2026-12-05T10:00:00.000Z', '2026-12-06T10:00:00.000Z'],
      ['2026-12-06T10:00:00.000Z', '2026-12-07T10:00:00.000Z'],
      ['2026-12-07T10:00:00.000Z', '2026-12-07T12:00:00.000Z'],
    ]);
  });

  it('reaches back at most 7 days, and names what lay before', () => {
    const window = pullWindow({ watermark: new Date(now.getTime() - 10 * 24 * HOUR), connectedAt: new Date(0), now, overlapMs: 0 });
    expect(window.slices).toHaveLength(7);
    expect(window.slices[0]!.from.toISOString()).toBe('2026-11-30T12:00:00.000Z');
    expect(iso([window.missed!])).toEqual([['2026-11-27T12:00:00.000Z', '2026-11-30T12:00:00.000Z']]);
  });
});

describe('India time', () => {
  it('is UTC+05:30, written as the portals write it, and read back', () => {
    expect(indiaTime(new Date('2026-12-07T20:00:00.000Z'))).toBe('2026-12-08 01:30:00');
    expect(indiaDay(new Date('2026-12-07T20:00:00.000Z'))).toBe('20261208');
    expect(fromIndiaTime(' 2026-12-08 01:30:00 ')?.toISOString()).toBe('2026-12-07T20:00:00.000Z');
    expect(fromIndiaTime('20261208013000')?.toISOString()).toBe('2026-12-07T20:00:00.000Z');
    expect(fromIndiaTime('2026-02-30 10:00:00')).toBeUndefined();
    expect(fromIndiaTime('yesterday')).toBeUndefined();
  });
});

describe('the portals', () => {
  it('are listed alike where their words are derived and where their readers are', () => {
    expect(portals.map(({ source }) => source)).toEqual([...portalDescriptors]);
    expect(portals.map(({ source }) => source.name)).toEqual(['99acres', 'magicbricks', 'housing']);
  });
});
