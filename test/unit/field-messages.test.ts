import { describe, expect, test } from '@jest/globals';
import { groupThousands } from '../../shared/schemas/lead-fields.ts';

describe('Field limits in error messages', () => {
  test('group thousands with commas, as en-US writes them', () => {
    for (const n of [0, 7, 100, 999, 1_000, 5_000, 65_536, 100_000, 1_234_567]) expect(groupThousands(n)).toBe(n.toLocaleString('en-US'));
    expect(groupThousands(1_234_567)).toBe('1,234,567');
  });
});
