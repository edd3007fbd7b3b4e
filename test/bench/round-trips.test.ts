/**
 * The bench's round-trip section (bench/round-trips.ts), run small against the test DynamoDB Local:
 * the counts `npm run bench` reports are the ones the design promises.
 */
import { describe, expect, test } from '@jest/globals';
import { measureRoundTrips } from '../../bench/round-trips.ts';

describe('bench: DynamoDB round trips per lead request', () => {
  test('new lead 1, repeated under create 3, under merge 3, under merge with an Idempotency-Key 2, rejected duplicate 2 (check + its record in the rejection log), cold container at most 3', async () => {
    const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
    if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests with npm test');
    const cases = await measureRoundTrips(endpoint);
    const byCase = Object.fromEntries(cases.map((c) => [c.case, { roundTrips: c.roundTrips, status: c.status }]));
    expect(byCase).toEqual({
      'first request of a cold container': { roundTrips: expect.any(Number), status: 200 },
      'new lead (warm)': { roundTrips: 1, status: 200 },
      'repeated lead under create': { roundTrips: 3, status: 200 },
      'repeated lead under merge': { roundTrips: 3, status: 200 },
      'repeated lead under merge with an Idempotency-Key': { roundTrips: 2, status: 200 },
      'rejected duplicate under ignore': { roundTrips: 2, status: 422 },
    });
    expect(byCase['first request of a cold container']!.roundTrips).toBeLessThanOrEqual(3);
    expect(cases.every((c) => c.met)).toBe(true);
  });
});
