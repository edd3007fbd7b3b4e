/**
 * Two accounts and one number through one warm handler (CONTRACT.md section 13, against DynamoDB
 * Local): the number directory caches connections for the configuration TTL, and a call is matched
 * on the key's account and the number together, never on the number alone, whichever account's call
 * warmed the cache first.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';

let calls: CallTestService;
let keyOfA: string;
let keyOfB: string;
const A = 'acc-number-owner';
const B = 'acc-number-stranger';

beforeAll(async () => {
  // A long TTL: every connection read stays warm for the whole file.
  calls = await callTestService({ configCacheTtlSeconds: 600 });
  // Both accounts have the project and campaign a connection of A names, so a call matched to A's
  // connection under B's key would become B's lead rather than fail on a project B lacks.
  await calls.seedAccount({ id: A, projects: { 'PRJ-1': ['CMP-1'] } });
  await calls.seedAccount({ id: B, projects: { 'PRJ-1': ['CMP-1'], 'PRJ-B': ['CMP-B'] } });
  keyOfA = await calls.callsKey(A);
  keyOfB = await calls.callsKey(B);
});

const callTo = async (key: string, number: string) => {
  const delivery = { call_id: callId(), caller_number: uniqueMobile(), called_number: number };
  expect(await calls.deliver({ headerKey: key, json: delivery })).toMatchObject({ status: 200, body: { status: true, message: 'Call received' } });
  return delivery;
};
const leadsFor = async (accountId: string, callIdSent: string) => (await calls.leadsOf(accountId, ['PRJ-1', 'PRJ-B'])).filter((lead) => lead.call_id === callIdSent);
const recordsFor = async (accountId: string, callIdSent: string) => (await calls.rejectionsOf(accountId)).filter((record) => record.call_id === callIdSent);

const expectLeadOfA = async (delivery: { call_id: string; caller_number: string }) => {
  expect(await leadsFor(A, delivery.call_id)).toEqual([expect.objectContaining({ mobile_number: delivery.caller_number, projectID: 'PRJ-1', campaignID: 'CMP-1' })]);
};
const expectNotConnectedForB = async (delivery: { call_id: string }, number: string) => {
  expect(await leadsFor(B, delivery.call_id)).toEqual([]);
  expect(await recordsFor(B, delivery.call_id)).toEqual([expect.objectContaining({ reason: 'call_number_not_connected', fields: { call_number: number } })]);
};

describe("a number only account A connected, called under account B's key", () => {
  it("is not B's lead after A's call warmed the cache, and A's calls still become A's leads", async () => {
    const number = projectNumber();
    await calls.connectNumber(A, number);
    await expectLeadOfA(await callTo(keyOfA, number));
    await expectNotConnectedForB(await callTo(keyOfB, number), number);
    await expectLeadOfA(await callTo(keyOfA, number));
  });

  it("is not B's lead when B called first, nor after A's call warmed the cache since", async () => {
    const number = projectNumber();
    await calls.connectNumber(A, number);
    await expectNotConnectedForB(await callTo(keyOfB, number), number);
    await expectLeadOfA(await callTo(keyOfA, number));
    await expectNotConnectedForB(await callTo(keyOfB, number), number);
  });
});

describe('a number both accounts connected, to projects of their own', () => {
  it("makes each account's call a lead of its own connection, in either order", async () => {
    const number = projectNumber();
    await calls.connectNumber(A, number);
    await calls.connectNumber(B, number, 'PRJ-B', 'CMP-B');
    const fromA = await callTo(keyOfA, number);
    const fromB = await callTo(keyOfB, number);
    const fromAAgain = await callTo(keyOfA, number);
    await expectLeadOfA(fromA);
    await expectLeadOfA(fromAAgain);
    expect(await leadsFor(B, fromB.call_id)).toEqual([expect.objectContaining({ mobile_number: fromB.caller_number, projectID: 'PRJ-B', campaignID: 'CMP-B' })]);
    expect(await leadsFor(A, fromB.call_id)).toEqual([]);
  });
});
