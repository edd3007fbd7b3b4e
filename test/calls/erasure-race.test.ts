/**
 * A call meets an erasure (CONTRACT.md sections 13 and 14): a repeat call whose original lead is erased
 * while the repeat is being stored becomes an original, never a repeat of the erased lead, and the call
 * id's redelivery answers it as it became. The race is made certain with the fault relay: the repeat's
 * write is held at the wire while the erasure runs whole.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { healedBeforeEach, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { uniqueMobile } from '../support/service.ts';
import { callId, callTestService, projectNumber, type CallTestService } from '../support/call-service.ts';

let relay: FaultRelay;
let calls: CallTestService;
let key: string;
const number = projectNumber();

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  calls = await callTestService({ endpoint: relay.endpoint });
  await calls.seedAccount({ id: 'acc-call-race', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
  key = await calls.callsKey('acc-call-race');
  await calls.connectNumber('acc-call-race', number);
}, 30_000);
afterAll(async () => {
  await relay?.close();
});

healedBeforeEach(() => relay);

const call = (id: string, caller: string) => calls.deliver({ queryKey: key, json: { call_id: id, caller_number: caller, called_number: number } });

describe("an erasure between a repeat call's claim check and its write", () => {
  it('makes the repeat call a new original, and its redelivery changes nothing', async () => {
    const caller = uniqueMobile();
    expect((await call(callId(), caller)).status).toBe(200);
    const repeatId = callId();
    let writes = 0;
    let erased: unknown;
    relay.plan(async (request) => {
      // A call's repeat is a transaction under its call id: the first is the refused claim, the second the repeat.
      if (request.operation !== 'TransactWriteItems' || (writes += 1) !== 2) return undefined;
      // A failed erasure is kept as what it threw, so that the assertion below says why.
      erased = await calls.repository.people.erasePerson('acc-call-race', { kind: 'mobile', value: caller }).catch((error: unknown) => error);
      return undefined;
    });
    expect(await call(repeatId, caller)).toMatchObject({ status: 200, body: { status: true, message: 'Call received' } });
    relay.heal();

    expect(erased).toEqual({ leads: 1, rejections: 0, alternate_numbers: 0 });
    const stored = (await calls.leadsOf('acc-call-race')).filter((lead) => lead.mobile_number === caller);
    expect(stored).toEqual([expect.objectContaining({ call_id: repeatId, is_repeated: false, parent_lead_id: null })]);
    expect(await calls.repository.leadArchive.checkIntegrity()).toEqual([]);
    expect((await call(repeatId, caller)).status).toBe(200);
    expect((await calls.leadsOf('acc-call-race')).filter((lead) => lead.mobile_number === caller)).toEqual(stored);
  });
});
