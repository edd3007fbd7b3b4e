/**
 * The one intake's rules (shared/intake/intake.ts), held by a source made up here that no other code
 * knows: what a source declares is all the intake runs. Against DynamoDB Local, on the test service's
 * real stores: several deliveries of one request, each on its own and in order; what a source ignores
 * or refuses before validation; its connection's three rules when not connected; one record per
 * platform id; a connection moved takes effect at once with the cache warm.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callNumberConnections } from '../../shared/calls/connections.ts';
import { connectCallNumber } from '../support/call-service.ts';
import { FieldValidationError, refusal, type LeadIntakeError } from '../../shared/domain/errors.ts';
import { leadFieldValidator } from '../../shared/domain/field-validation.ts';
import { submissionOf } from '../../shared/domain/submissions.ts';
import { ConnectionDirectory } from '../../shared/intake/connection-directory.ts';
import { receiveDeliveries, type IntakeDependencies } from '../../shared/intake/intake.ts';
import type { Delivery, IntakeRequest, IntakeSource, NotConnectedRule } from '../../shared/intake/types.ts';
import { commonLeadFields } from '../../shared/schemas/lead-fields.ts';
import { apiGatewayEvent } from '../../shared/http/api-gateway-event.ts';
import { testService, uniqueMobile, type TestService } from '../support/service.ts';

class NotOursError extends refusal(422, 'not_ours', 'Not one of ours') {}
class UnknownDeskError extends refusal(401, 'unknown_desk', 'Unknown desk') {}

/** A made-up source: messages to a desk (a number of the connection store's per-account kind), each with its own message id. */
interface Message {
  readonly id?: string;
  readonly desk?: string;
  readonly mobile: string;
  readonly kind?: 'text' | 'receipt' | 'spam';
}

type MessageDelivery = Delivery & { readonly message: Message };

const validate = leadFieldValidator(commonLeadFields, 'ignore');

const deskSource = (notConnected: NotConnectedRule): IntakeSource<MessageDelivery> => ({
  name: 'desk',
  authentication: { kind: 'scoped-api-key', scope: { name: 'calls' } },
  bodyFormat: 'json',
  answer: { status: 200, message: 'Received', withLead: false },
  platformId: { field: 'desk_message_id', idempotencyPrefix: 'desk' },
  connection: { key: callNumberConnections, notConnected },
  lead: { validate: (fields) => validate(fields), submission: (fields) => submissionOf({ source: 'call', subSource: () => ({ kind: 'of_source', name: 'desk' }) }, fields) },
  read: () => [],
});

let service: TestService;
let deps: IntakeDependencies;
const ACCOUNT = 'acc-intake';

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: ACCOUNT, duplicateSetting: 'create', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  deps = { ...service.runtime, connections: new ConnectionDirectory(service.repository.connections(callNumberConnections), { ttlMs: 30_000 }) };
});

const numberAdmin = () => ({ connections: service.repository.connections(callNumberConnections), accounts: service.repository.accounts });
let deskSequence = 0;
const newDesk = async (projectId = 'PRJ-1', campaignId = 'CMP-1') => {
  const desk = `80770${String(Date.now() % 1e3).padStart(3, '0')}${String(deskSequence++).padStart(2, '0')}`;
  await connectCallNumber(numberAdmin(), { accountId: ACCOUNT, number: desk, projectId, campaignId });
  return desk;
};
let messageSequence = 0;
const messageId = () => `m-${Date.now().toString(36)}-${messageSequence++}`;

const deliveryOf = (message: Message): MessageDelivery => ({
  message,
  fields: (desk) => ({ name: 'Asha', mobile_number: message.mobile, ...(desk && { projectID: desk.projectId, campaignID: desk.campaignId }) }),
  platformId: { id: message.id },
  connection: { id: message.desk, accountId: ACCOUNT, notConnectedFields: { desk: message.desk } },
  ...(message.kind === 'receipt' && { ignored: 'receipt' }),
  ...(message.kind === 'spam' && { refusal: new NotOursError() as LeadIntakeError }),
});

const request = (): IntakeRequest => ({ event: apiGatewayEvent({ method: 'POST', path: '/desk' }), requestId: `req-${messageSequence}`, route: undefined, accountId: ACCOUNT });

const receive = async (source: IntakeSource<MessageDelivery>, messages: readonly Message[]) => {
  const account = await service.runtime.directory.account(ACCOUNT);
  return receiveDeliveries(source, deps, request(), { account: { ...account, key: { accountId: ACCOUNT, active: true } } as never }, messages.map(deliveryOf));
};

const leadsWith = async (mobile: string) => (await service.repository.leadArchive.listLeads(ACCOUNT, ['PRJ-1', 'PRJ-2'])).filter((lead) => lead.mobile_number === mobile);
const recordsOf = async (id: string) => (await service.repository.rejections.listRejections(ACCOUNT)).filter((record) => record.desk_message_id === id);

const recorded = deskSource({ answer: 'record', error: () => new NotOursError() });

describe('several deliveries of one request', () => {
  it('are each received on their own, in the order sent, and a receipt among them is ignored', async () => {
    const desk = await newDesk();
    const [first, second] = [uniqueMobile(), uniqueMobile()];
    const outcomes = await receive(recorded, [
      { id: messageId(), desk, mobile: first },
      { id: messageId(), desk, mobile: second, kind: 'receipt' },
      { id: messageId(), desk, mobile: second },
    ]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['created', 'ignored', 'created']);
    expect(await leadsWith(first)).toHaveLength(1);
    expect(await leadsWith(second)).toHaveLength(1);
  });

  it('admit the request once, before the first delivery that writes, and not at all when every one is ignored', async () => {
    const desk = await newDesk();
    let admitted = 0;
    const counted: IntakeSource<MessageDelivery> = { ...recorded, admit: async () => void (admitted += 1) };
    await receive(counted, [{ id: messageId(), desk, mobile: uniqueMobile(), kind: 'receipt' }]);
    expect(admitted).toBe(0);
    await receive(counted, [
      { id: messageId(), desk, mobile: uniqueMobile() },
      { id: messageId(), desk, mobile: uniqueMobile() },
    ]);
    expect(admitted).toBe(1);
  });
});

describe('one platform id', () => {
  it('stores one lead whatever its deliveries, one after another or at once', async () => {
    const desk = await newDesk();
    const [id, mobile] = [messageId(), uniqueMobile()];
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => receive(recorded, [{ id, desk, mobile }])));
    expect(outcomes.flat().filter((outcome) => outcome.kind === 'created' && !outcome.replayed)).toHaveLength(1);
    expect(await leadsWith(mobile)).toHaveLength(1);
    expect(await recordsOf(id)).toHaveLength(0);
  });

  it('refused before validation, keeps one record for its repeated and simultaneous deliveries', async () => {
    const desk = await newDesk();
    const [id, mobile] = [messageId(), uniqueMobile()];
    await receive(recorded, [{ id, desk, mobile, kind: 'spam' }]);
    await Promise.all(Array.from({ length: 10 }, () => receive(recorded, [{ id, desk, mobile, kind: 'spam' }])));
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ endpoint: 'desk', reason: 'not_ours', desk_message_id: id })]);
    expect(await leadsWith(mobile)).toHaveLength(0);
  });

  it('refused by validation, keeps one record, of reason validation (one name whatever the source)', async () => {
    const desk = await newDesk();
    const id = messageId();
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => receive(recorded, [{ id, desk, mobile: '12' }])));
    expect(outcomes.flat().filter((outcome) => outcome.kind === 'rejected')).toEqual([{ kind: 'rejected', reason: 'validation' }]);
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ reason: 'validation' })]);
    expect(new FieldValidationError({}).reason).toBe('validation');
  });
});

describe('a delivery whose connection is not connected', () => {
  it('is recorded, once, when its source records that', async () => {
    const id = messageId();
    await receive(recorded, [{ id, desk: '8077999999', mobile: uniqueMobile() }]);
    await receive(recorded, [{ id, desk: '8077999999', mobile: uniqueMobile() }]);
    expect(await recordsOf(id)).toEqual([expect.objectContaining({ reason: 'not_ours', fields: { desk: '8077999999' } })]);
  });

  it('refuses the request when its source refuses it', async () => {
    const refused = deskSource({ answer: 'refuse', error: () => new UnknownDeskError() });
    await expect(receive(refused, [{ id: messageId(), desk: '8077999998', mobile: uniqueMobile() }])).rejects.toBeInstanceOf(UnknownDeskError);
  });

  it('is ignored, and nothing stored, when its source ignores it', async () => {
    const ignoring = deskSource({ answer: 'ignore' });
    const [id, mobile] = [messageId(), uniqueMobile()];
    expect(await receive(ignoring, [{ id, desk: '8077999997', mobile }])).toEqual([{ kind: 'ignored', reason: 'not_connected' }]);
    expect(await recordsOf(id)).toHaveLength(0);
    expect(await leadsWith(mobile)).toHaveLength(0);
  });
});

describe('a connection moved while the directory has it cached', () => {
  it('sends the next delivery to its new project and campaign at once', async () => {
    const desk = await newDesk('PRJ-1', 'CMP-1');
    await receive(recorded, [{ id: messageId(), desk, mobile: uniqueMobile() }]);
    await connectCallNumber(numberAdmin(), { accountId: ACCOUNT, number: desk, projectId: 'PRJ-2', campaignId: 'CMP-2' });
    const mobile = uniqueMobile();
    await receive(recorded, [{ id: messageId(), desk, mobile }]);
    expect(await leadsWith(mobile)).toEqual([expect.objectContaining({ projectID: 'PRJ-2', campaignID: 'CMP-2' })]);
  });
});
