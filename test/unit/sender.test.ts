/** The tests' sender (test/support/sender.ts): what a sender is told by a 503 (CONTRACT.md section 14), bounded. */
import { describe, expect, it } from '@jest/globals';
import { MOST_ATTEMPTS, sendAsSender, UNAVAILABLE_MESSAGE } from '../support/sender.ts';

const unavailable = (retryAfter: string) => ({ status: 503, headers: { 'retry-after': retryAfter }, body: { message: UNAVAILABLE_MESSAGE } });

describe("a test's sender", () => {
  it('sends a 503 "please retry" again after its Retry-After, and answers the final answer with the count of 503s', async () => {
    const sent: number[] = [];
    const answers = [unavailable('1'), { status: 422, headers: {}, body: { message: 'Lead already exists' } }];
    const { answer, retried } = await sendAsSender(async () => (sent.push(Date.now()), answers.shift()!));
    expect(answer.status).toBe(422);
    expect(retried).toBe(1);
    expect(sent[1]! - sent[0]!).toBeGreaterThanOrEqual(1_000);
  });

  it('reads Retry-After from fetch’s Headers too', async () => {
    const answers = [{ status: 503, headers: new Headers({ 'retry-after': '1' }), body: { message: UNAVAILABLE_MESSAGE } }, { status: 200, headers: new Headers(), body: {} }];
    expect(await sendAsSender(async () => answers.shift()!)).toMatchObject({ answer: { status: 200 }, retried: 1 });
  });

  it('never sends again what is not a "please retry" 503', async () => {
    let sends = 0;
    const { answer, retried } = await sendAsSender(async () => (sends++, { status: 503, headers: { 'retry-after': '1' }, body: { message: 'Service Unavailable' } }));
    expect([answer.status, retried, sends]).toEqual([503, 0, 1]);
  });

  it('gives up after its attempts, answering the last 503', async () => {
    let sends = 0;
    const { answer, retried } = await sendAsSender(async () => (sends++, unavailable('0')), 3);
    expect([answer.status, retried, sends]).toEqual([503, 2, 3]);
    expect(MOST_ATTEMPTS).toBeGreaterThan(3);
  }, 10_000);
});
