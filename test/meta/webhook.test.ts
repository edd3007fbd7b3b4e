/**
 * The Meta webhook (CONTRACT.md section 8) through its handler, against DynamoDB Local: the
 * subscription check, the signature over the raw body checked before anything is read or stored, and
 * the acknowledgement once every leadgen change is queued.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signatureOf } from '../../shared/meta/signature.ts';
import { fieldData, leadgenNotification } from '../support/fake-graph.ts';
import { APP_SECRET, metaTestService, VERIFY_TOKEN, type MetaTestService } from '../support/meta-service.ts';

let meta: MetaTestService;
const TOKEN = 'EAAB-page-token-webhook-1';

beforeAll(async () => {
  meta = await metaTestService();
  await meta.seedAccount({ id: 'acc-w', projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  await meta.connectPage('acc-w', '1001', TOKEN, { '2001': { projectID: 'PRJ-1', campaignID: 'CMP-1' } });
});
afterAll(async () => {
  meta.queue.stop();
  await meta.graph.close();
});

const serveLead = (leadgenId: string, mobile = '9876543210') =>
  meta.graph.serve(leadgenId, TOKEN, { platform: 'fb', form_id: '2001', field_data: fieldData({ full_name: 'Asha Verma', phone_number: mobile }) });

describe('the subscription check (GET)', () => {
  it('answers the challenge exactly, as text/plain, when the verify token is right', async () => {
    const answer = await meta.verify(`hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('1158201444');
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('decodes the challenge as Meta encoded it', async () => {
    const answer = await meta.verify(`hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=a%20b%2Bc`);
    expect(answer.body).toBe('a b+c');
  });

  it.each([
    ['a wrong verify token', `hub.mode=subscribe&hub.verify_token=guess&hub.challenge=42`],
    ['no verify token', `hub.mode=subscribe&hub.challenge=42`],
    ['no challenge', `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}`],
    ['no mode', `hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`],
    ['another mode', `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=42`],
    ['no query at all', ''],
  ])('refuses %s with 403 and does not echo the challenge', async (_case, query) => {
    const answer = await meta.verify(query);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ status: false, message: 'Verification failed' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });
});

describe('the signature (POST)', () => {
  const notification = leadgenNotification([{ pageId: '1001', leadgenId: '5001', formId: '2001' }]);
  const body = JSON.stringify(notification);

  it.each([
    ['no X-Hub-Signature-256 header', null],
    ['an empty header', ''],
    ['a header without the sha256= prefix', signatureOf(body, APP_SECRET).slice('sha256='.length)],
    ['a SHA-1 signature (X-Hub-Signature style)', `sha1=${'ab'.repeat(20)}`],
    ['a truncated digest', signatureOf(body, APP_SECRET).slice(0, -2)],
    ['a signature made with another secret', signatureOf(body, 'not-the-app-secret')],
    ['a signature of other bytes (the same JSON re-serialised)', signatureOf(JSON.stringify(notification, null, 2), APP_SECRET)],
    ['a digest that is not hex', `sha256=${'zz'.repeat(32)}`],
  ])('refuses %s with 401 Invalid signature: nothing read, nothing stored', async (_case, signature) => {
    serveLead('5001');
    const answer = await meta.notify(notification, { rawBody: body, signature });
    await meta.queue.idle();
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ status: false, message: 'Invalid signature' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(meta.graph.readsOf('5001')).toHaveLength(0);
    expect(await meta.leadsOf('acc-w')).toHaveLength(0);
    expect(await meta.rejectionsOf('acc-w')).toHaveLength(0);
  });

  it('refuses a body changed after signing, even by one byte', async () => {
    const tampered = body.replace('5001', '5002');
    const answer = await meta.notify(undefined, { rawBody: tampered, signature: signatureOf(body, APP_SECRET) });
    expect(answer.status).toBe(401);
  });

  it('checks the signature before the JSON: unsigned garbage is 401, not 400', async () => {
    const answer = await meta.notify(undefined, { rawBody: '{not json', signature: null });
    expect(answer.status).toBe(401);
  });

  it('answers 400 Malformed JSON body to a signed body that is not JSON', async () => {
    const answer = await meta.notify(undefined, { rawBody: '{"object": "page", ' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ status: false, message: 'Malformed JSON body' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('takes the upper-case hex digest Meta may send', async () => {
    const answer = await meta.notify(undefined, { rawBody: '{"object":"user","entry":[]}', signature: signatureOf('{"object":"user","entry":[]}', APP_SECRET).toUpperCase().replace('SHA256=', 'sha256=') });
    expect(answer.status).toBe(200);
  });

  it('verifies a base64-encoded body over its bytes', async () => {
    const raw = Buffer.from(JSON.stringify(leadgenNotification([])));
    const answer = await meta.notify(undefined, { rawBody: raw, signature: signatureOf(raw, APP_SECRET) });
    expect(answer.status).toBe(200);
  });
});

describe('the acknowledgement', () => {
  it('answers 200 Notification received to a signed notification, then creates its lead', async () => {
    serveLead('5101', '9000005101');
    const answer = await meta.notify(leadgenNotification([{ pageId: '1001', leadgenId: '5101', formId: '2001' }]));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Notification received' });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    await meta.queue.idle();
    expect((await meta.leadsOf('acc-w')).map((lead) => lead.meta_leadgen_id)).toContain('5101');
  });

  it('answers before the lead is read: a failing Graph API does not change or delay the answer', async () => {
    meta.graph.failAlways('5102', 'server_error');
    const started = performance.now();
    const answer = await meta.notify(leadgenNotification([{ pageId: '1001', leadgenId: '5102', formId: '2001' }]));
    expect(answer.status).toBe(200);
    // Meta's bound is 3 s (CONTRACT section 8); a failing read would take its retries' back-off first.
    expect(performance.now() - started).toBeLessThan(3_000);
    await meta.queue.idle();
  });

  it.each([
    ['signed JSON that is not a page notification', { object: 'instagram', entry: [{ id: '1', changes: [{ field: 'comments', value: {} }] }] }],
    ['a page notification of another field', leadgenNotification([{ pageId: '1001', leadgenId: '5103', formId: '2001', field: 'feed' }])],
    ['a JSON array', [1, 2, 3]],
    ['a page notification without entries', { object: 'page' }],
  ])('acknowledges %s the same way and ignores it', async (_case, notification) => {
    serveLead('5103');
    const answer = await meta.notify(notification);
    await meta.queue.idle();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: true, message: 'Notification received' });
    expect(meta.graph.readsOf('5103')).toHaveLength(0);
  });

  it('keeps every digit of a leadgen id sent as a JSON number beyond 2^53', async () => {
    const leadgenId = '9007199254740993123';
    serveLead(leadgenId, '9000005104');
    const raw = `{"object":"page","entry":[{"id":"1001","time":1763800000,"changes":[{"field":"leadgen","value":{"leadgen_id":${leadgenId},"page_id":1001,"form_id":2001}}]}]}`;
    expect((await meta.notify(undefined, { rawBody: raw })).status).toBe(200);
    await meta.queue.idle();
    expect(meta.graph.readsOf(leadgenId)).toHaveLength(1);
    expect((await meta.leadsOf('acc-w')).find((lead) => lead.meta_leadgen_id === leadgenId)).toMatchObject({ meta_form_id: '2001' });
  });

  it('answers 500 with a request id, and no detail, when the changes cannot be queued (Meta then retries)', async () => {
    const { metaWebhookHandler } = await import('../../shared/meta/webhook-handler.ts');
    const { apiGatewayEvent, lambdaContext } = await import('../../shared/http/api-gateway-event.ts');
    const lines: Record<string, unknown>[] = [];
    const failing = metaWebhookHandler({
      secrets: async () => ({ appSecret: APP_SECRET, verifyToken: VERIFY_TOKEN }),
      queue: { enqueue: async () => Promise.reject(new Error('SQS unreachable')) },
      log: (line) => lines.push(line),
    });
    const body = JSON.stringify(leadgenNotification([{ pageId: '1001', leadgenId: '5105', formId: '2001' }]));
    const event = apiGatewayEvent({ method: 'POST', path: '/api/meta-leadgen-webhook', headers: { 'x-hub-signature-256': signatureOf(body, APP_SECRET) }, body });
    const response = await failing(event, lambdaContext('meta-webhook') as never);
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body!).message).toBe(`Lead could not be created (request ${response.headers['x-request-id']})`);
    expect(lines.at(-1)).toMatchObject({ status: 500, endpoint: 'meta-webhook' });
  });
});
