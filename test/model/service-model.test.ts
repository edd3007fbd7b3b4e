/**
 * Where features meet (CONTRACT.md section 14, issue 25): a model-based test of the whole service.
 * Random sequences, with overlaps, of submissions through the four endpoints with each kind of key
 * (server, scoped, browser, browser with a challenge), retries with the same Idempotency-Key, answers
 * lost after the write and conflicting transactions (the fault relay), challenges that pass, fail or
 * cannot be checked, releases, erasures by mobile and by e-mail, key rotations and revocations, the seed
 * applied again, Google deliveries and redeliveries, calls to the project numbers (delivered again, at
 * once, to a number not connected) and the operator connecting, moving and removing numbers, WhatsApp
 * chats (redelivered, twice at once, followed by a later message, to a number not connected) and the
 * operator connecting, moving and removing WhatsApp numbers; after
 * every step, the invariants of model.ts.
 *
 * `npm test` runs a fixed seed at a bounded size, and the pinned cases (pinned.ts) whatever it draws;
 * `npm run soak` runs random seeds for MODEL_MINUTES (docs/reliability.md says how to replay a seed
 * and path it prints, and when to pin a case).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import * as fc from 'fast-check';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { fakeSiteverify, type FakeSiteverify } from '../support/fake-siteverify.ts';
import { startFaultRelay, type FaultRelay } from '../support/fault-relay.ts';
import { modelCommands } from './commands.ts';
import { keyOptionsOf } from './actions.ts';
import { Model, toleratedBreaks } from './model.ts';
import { PINNED_CASES } from './pinned.ts';
import { ACCOUNT, buildWorld, CALL_NUMBERS, CAPTCHA_SECRET, FORM_IDS, SEED_BROWSER_KEY, SEED_FORM_KEY, SEED_SERVER_KEY, SEEDED_CALL_NUMBER, SEEDED_WHATSAPP_NUMBER, WHATSAPP_NUMBERS, type World } from './world.ts';

const env = process.env;
const soakMinutes = Number(env.MODEL_MINUTES ?? 0);
/** The size of `npm test`'s run: about 30 s on a quiet machine. */
const runs = Number(env.MODEL_RUNS ?? (soakMinutes > 0 ? 50 : 20));
const maxCommands = Number(env.MODEL_COMMANDS ?? (soakMinutes > 0 ? 30 : 20));
const fixedSeed = env.MODEL_SEED !== undefined ? Number(env.MODEL_SEED) : soakMinutes > 0 ? undefined : 2511;
const replayPath = env.MODEL_PATH;
const commandsReplayPath = env.MODEL_COMMANDS_PATH;
/** How long sequences tend to be (fast-check's size): the soak's are longer than `npm test`'s. */
const size = (env.MODEL_SIZE ?? (soakMinutes > 0 ? 'medium' : undefined)) as fc.SizeForArbitrary | undefined;

let relay: FaultRelay;
let provider: FakeSiteverify;

beforeAll(async () => {
  relay = await startFaultRelay(process.env.TEST_DYNAMODB_ENDPOINT!);
  provider = await fakeSiteverify(CAPTCHA_SECRET);
});

afterAll(async () => {
  for (const [kind, { count, example }] of toleratedBreaks) process.stdout.write(`MODEL_TOLERATE: ${count} x ${kind}\n  first: ${example.slice(0, 1500)}\n`);
  await relay?.close();
  await provider?.close();
});

/** One run: a fresh service, the model of its seeded state, and the commands. */
const runCommands = async (setting: DuplicateSetting, commands: Iterable<fc.AsyncCommand<Model, World>>): Promise<void> => {
  const world = await buildWorld({ relay, provider, setting });
  try {
    const scoped = await world.service.issueScopedKey(keyOptionsOf('scoped'));
    const captcha = await world.service.issueScopedKey(keyOptionsOf('captcha'));
    const second = await world.admin('PUT', `/admin/v1/accounts/${ACCOUNT}/google-forms/${FORM_IDS[1]}`, { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    if (second.status !== 201) throw new Error(`connecting the second form answered ${second.status}`);
    const model = () =>
      new Model(
        setting,
        {
          server: { current: SEED_SERVER_KEY, currentId: 'key_modelserver', dead: [] },
          scoped: { current: scoped.key, currentId: scoped.keyId, dead: [] },
          browser: { current: SEED_BROWSER_KEY, currentId: 'key_modelbrowser', dead: [] },
          captcha: { current: captcha.key, currentId: captcha.keyId, dead: [] },
        },
        [
          { formId: FORM_IDS[0], current: SEED_FORM_KEY, dead: [] },
          { formId: FORM_IDS[1], current: second.body.key, dead: [] },
        ],
        CALL_NUMBERS.map((number) => ({ number, project: number === SEEDED_CALL_NUMBER.number ? 0 : undefined, seeded: number === SEEDED_CALL_NUMBER.number })),
        WHATSAPP_NUMBERS.map((phoneNumberId) => ({ phoneNumberId, project: phoneNumberId === SEEDED_WHATSAPP_NUMBER.phoneNumberId ? 0 : undefined, seeded: phoneNumberId === SEEDED_WHATSAPP_NUMBER.phoneNumberId })),
      );
    await fc.asyncModelRun(() => ({ model: model(), real: world }), commands);
  } finally {
    await world.dispose();
  }
};

const property = fc.asyncProperty(fc.constantFrom<DuplicateSetting>('ignore', 'create', 'merge'), modelCommands(maxCommands, commandsReplayPath, size), runCommands);

const check = async (seed: number | undefined, numRuns: number) => {
  const parameters: fc.Parameters<[DuplicateSetting, Iterable<fc.AsyncCommand<Model, unknown>>]> = {
    numRuns,
    ...(seed !== undefined && { seed }),
    ...(replayPath !== undefined && { path: replayPath, endOnFailure: true }),
    // A failure is shrunk for at most two minutes (five in a soak), then reported as it stands.
    interruptAfterTimeLimit: (soakMinutes > 0 ? 5 : 2) * 60_000,
    markInterruptAsFailure: false,
  };
  const details = await fc.check(property, parameters as never);
  if (details.failed) {
    // fast-check's report: the seed, the path to replay it, and the counterexample's steps.
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const commandsPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[1] ?? ''))?.[1];
    const replay = `MODEL_SEED=${details.seed} MODEL_PATH="${details.counterexamplePath}"${commandsPath ? ` MODEL_COMMANDS_PATH="${commandsPath}"` : ''} MODEL_COMMANDS=${maxCommands}${size ? ` MODEL_SIZE=${size}` : ''}`;
    throw new Error(`${fc.defaultReportMessage(details)}\n\nWhat broke: ${cause}\n\nReplay: ${replay} npm run soak:replay`);
  }
  return details;
};

describe('the whole service, driven by a model of the contract', () => {
  it(
    'keeps one submission one lead, a record for every 200 that is not a lead, no repeat without its original, nothing of an erased person, no dead key alive, and the integrity check green',
    async () => {
      if (soakMinutes <= 0) {
        await check(fixedSeed, runs);
        return;
      }
      const end = Date.now() + soakMinutes * 60_000;
      let batches = 0;
      while (Date.now() < end) {
        const seed = fixedSeed ?? Math.floor(Math.random() * 2 ** 31);
        process.stdout.write(`model soak: batch ${++batches}, seed ${seed}, ${runs} runs of up to ${maxCommands} steps\n`);
        await check(seed, runs);
      }
    },
    soakMinutes > 0 ? soakMinutes * 60_000 + 10 * 60_000 : 4 * 60_000,
  );
});

describe('cases the soak found and issue 37 names, run whatever the random search draws', () => {
  it.each(PINNED_CASES.map((pinned) => [pinned.name, pinned] as const))('%s', async (_name, { setting, steps }) => {
    await runCommands(setting, steps());
  });
});
