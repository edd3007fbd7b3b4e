import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DuplicateSetting, LeadRecord } from '../../shared/domain/lead.ts';
import { type EndpointName } from '../../shared/routes.ts';
import { leadRoutes } from '../../shared/sources/registry.ts';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import { cancelledTransactions, heldTogether, startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { sendAsSender } from '../support/sender.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

/**
 * Simultaneous requests through the local HTTP server (the real handlers, over DynamoDB Local): exactly
 * one original per (project, mobile), and exactly the leads answered 200 are stored. On a busy machine
 * some requests pass their deadline and are answered 503 `Service temporarily unavailable, please
 * retry`, which is the right answer then (docs/reference.md, "Deadlines"). Each racer sends what a
 * careful sender sends, an `Idempotency-Key` of its own, and on a 503 the same request again after
 * `Retry-After`; the race is judged on the final answers. The key is what makes the retry safe: a write
 * the deadline cut off may still be applied after the 503 (seen here with a 1.2 s deadline: without
 * keys, 219 leads stored for 100 answers of 200), and the retry then answers that lead instead of
 * storing another. The service talks
 * to DynamoDB Local through a relay (test/support/fault-relay.ts) that holds the first writes until
 * several have arrived and records what DynamoDB answered, so each race is shown to have happened:
 * writes in flight together at the database, and every loser's transaction cancelled there.
 */
let relay: FaultRelay;
let service: TestService;
let server: Server;
let baseUrl: string;
const keys: Partial<Record<DuplicateSetting, string>> = {};
const settings: DuplicateSetting[] = ['ignore', 'create', 'merge'];
const projects = [
  { projectID: 'PRJ-1', campaignID: 'CMP-1' },
  { projectID: 'PRJ-2', campaignID: 'CMP-2' },
];

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  service = await testService({ endpoint: relay.endpoint });
  for (const setting of settings) {
    await service.seedAccount({
      id: `acc-${setting}`,
      duplicateSetting: setting,
      projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] },
      website: ['Skyline landing page'],
      social: ['fb', 'ig', 'wp'],
    });
    keys[setting] = await service.issueKey(`acc-${setting}`);
  }
  server = createLocalServer({ handlers: service.handlers });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await relay?.close();
});

/** Room for a loaded machine: a round of 503s and their retries after `Retry-After`. */
const RACE_TIMEOUT_MS = 120_000;

/** Writes held at the relay until this many are there together. */
const RACERS = 8;

/** Runs `race` with the first writes held together, and shows that they raced. */
const racing = async <T>(race: () => Promise<T>): Promise<T> => {
  relay.clearSeen();
  relay.plan(heldTogether('TransactWriteItems', RACERS));
  const result = await race();
  relay.heal();
  expect(relay.mostInFlight('TransactWriteItems')).toBeGreaterThanOrEqual(RACERS);
  return result;
};

interface Posted {
  readonly endpoint: EndpointName;
  readonly status: number;
  readonly body: { data?: LeadRecord; message: string };
  /** How many 503s this request got before its final answer. */
  readonly retried: number;
}

/** Posts `body` as a sender does: under a key of its own, and a 503 sent again, the same request, after its `Retry-After`. */
const post = async (name: EndpointName, apiKey: string, body: unknown): Promise<Posted> => {
  const route = leadRoutes.find((r) => r.endpoint === name)!;
  const idempotencyKey = randomUUID();
  const { answer, retried } = await sendAsSender(async () => {
    const response = await fetch(`${baseUrl}${route.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Posted['body'] };
  });
  return { endpoint: name, status: answer.status, body: answer.body, retried };
};

/** Requests answered 503 at least once before their final answer, each of which may have reached the database. */
const retriesOf = (answers: readonly Posted[]) => answers.reduce((sum, answer) => sum + answer.retried, 0);

const storedWith = async (setting: DuplicateSetting, projectID: string, mobile: string) =>
  (await service.repository.leadArchive.listLeads(`acc-${setting}`, [projectID])).filter((lead) => lead.mobile_number === mobile);

const checkOutcome = async (setting: DuplicateSetting, projectID: string, mobile: string, answers: Posted[]) => {
  const stored = await storedWith(setting, projectID, mobile);
  const originals = stored.filter((lead) => !lead.is_repeated);
  const accepted = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status !== 200);
  // Every refusal is the duplicate answer itself, not some other 422 (or a 5xx).
  expect(refused.map((answer) => [answer.status, answer.body.message])).toEqual(refused.map(() => [422, 'Lead already exists']));
  expect(originals).toHaveLength(1);
  expect(stored).toHaveLength(accepted.length);
  if (setting === 'ignore') expect(accepted).toHaveLength(1);
  else expect(accepted).toHaveLength(answers.length);
  // Each 200 answered a lead that is stored, exactly as answered; the social endpoint answers no
  // lead, so its 200s are matched by count against the stored social leads no other answer names.
  const byId = new Map(stored.map((lead) => [lead.id, lead]));
  const answered = accepted.filter((answer) => answer.body.data);
  for (const answer of answered) expect(byId.get(answer.body.data!.id)).toEqual(answer.body.data);
  expect(new Set(answered.map((answer) => answer.body.data!.id)).size).toBe(answered.length);
  const named = new Set(answered.map((answer) => answer.body.data!.id));
  const unnamed = stored.filter((lead) => !named.has(lead.id));
  expect(unnamed.every((lead) => lead.source === 'social')).toBe(true);
  expect(unnamed).toHaveLength(accepted.filter((answer) => answer.endpoint === 'social').length);
  const parent = setting === 'merge' ? originals[0]!.id : null;
  for (const repeat of stored.filter((lead) => lead.is_repeated)) expect(repeat.parent_lead_id).toBe(parent);
  expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
};

describe.each(settings)('100 simultaneous requests for one new mobile under %s', (setting) => {
  it('give exactly one original, mixed across the four endpoints', async () => {
    const mobile = uniqueMobile();
    const answers = await racing(() =>
      Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const name = endpointNames[i % endpointNames.length]!;
          return post(name, keys[setting]!, validBody(name, projects[0]!, { mobile_number: mobile }));
        }),
      ),
    );
    await checkOutcome(setting, 'PRJ-1', mobile, answers);
    // One claim won; DynamoDB refused each of the 99 others' claims in its own cancelled transaction.
    // (Counted by transaction: a busy machine may make the SDK re-send one, with the same token; and
    // an attempt answered 503 may have been refused there too before its retry was.)
    const cancelled = cancelledTransactions(relay.seen('TransactWriteItems'));
    expect(new Set(cancelled.map((request) => request.body.ClientRequestToken)).size).toBeGreaterThanOrEqual(99);
    expect(new Set(cancelled.map((request) => request.body.ClientRequestToken)).size).toBeLessThanOrEqual(99 + retriesOf(answers));
    expect(cancelled.every((request) => request.answer!.CancellationReasons[0].Code === 'ConditionalCheckFailed')).toBe(true);
  }, RACE_TIMEOUT_MS);

  it('keep several mobiles and projects apart when interleaved', async () => {
    const targets = Array.from({ length: 4 }, (_, i) => ({ mobile: uniqueMobile(), project: projects[i % 2]! }));
    const requests = Array.from({ length: 80 }, (_, i) => ({ i, target: targets[i % targets.length]!, name: endpointNames[(i >> 2) % 4]! }));
    const answers = await racing(() =>
      Promise.all(
        requests.map(async ({ target, name }) => ({ target, answer: await post(name, keys[setting]!, validBody(name, target.project, { mobile_number: target.mobile })) })),
      ),
    );
    // Four winners, one per mobile and project; the 76 others were refused at the database (and
    // perhaps some of their attempts answered 503 before the retry).
    const refusedAtDatabase = new Set(cancelledTransactions(relay.seen('TransactWriteItems')).map((request) => request.body.ClientRequestToken)).size;
    expect(refusedAtDatabase).toBeGreaterThanOrEqual(76);
    expect(refusedAtDatabase).toBeLessThanOrEqual(76 + retriesOf(answers.map((a) => a.answer)));
    for (const target of targets) {
      await checkOutcome(
        setting,
        target.project.projectID,
        target.mobile,
        answers.filter((a) => a.target === target).map((a) => a.answer),
      );
    }
  }, RACE_TIMEOUT_MS);
});
