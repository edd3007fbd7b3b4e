import { describe, expect, it } from '@jest/globals';
import { ulidFactory } from '../../shared/domain/lead-id.ts';

describe('lead ids', () => {
  it('are 26-character ULIDs', () => {
    expect(ulidFactory()()).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('sort as strings in creation order, also within one millisecond', () => {
    const next = ulidFactory(() => 1_700_000_000_000);
    const ids = Array.from({ length: 1000 }, next);
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
  });

  it('keep their order when the clock steps back', () => {
    let now = 1_700_000_000_100;
    const next = ulidFactory(() => now);
    const first = next();
    now -= 50;
    expect(next() > first).toBe(true);
  });

  it('encode the creation time in their first ten characters', () => {
    const early = ulidFactory(() => 1_000)();
    const late = ulidFactory(() => 2_000)();
    expect(early.slice(0, 10) < late.slice(0, 10)).toBe(true);
  });
});
