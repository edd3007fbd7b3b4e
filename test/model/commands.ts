/**
 * The model's commands: what a lead sender, a visitor, Google, a telephony provider, Meta's WhatsApp webhook and an operator do to the service, as
 * fast-check commands. A step is one action, or two or three actions at once (interleaved at DynamoDB
 * by fast-check's scheduler), under the faults the step draws (an answer lost after the write, a
 * transaction cancelled for a conflict). Each answer is checked against what the contract allows in
 * the model's state; after every step the invariants are checked against the tables (model.ts).
 */
import * as fc from 'fast-check';
import { deliveryJson, standardColumns } from '../support/google-service.ts';
import {
  ACCOUNT_KEYS_PATH,
  Call,
  checkNumbers,
  ConnectNumber,
  Deliver,
  Erase,
  expectAnswer,
  keyOptionsOf,
  Release,
  RemoveNumber,
  Retry,
  Submit,
  Sweep,
  type Action,
  type CallSpec,
  type DeliverSpec,
  type Outcome,
  type StepContext,
  type SubmitSpec,
} from './actions.ts';
import { checkInvariants, KEY_ENDPOINTS, KEY_KINDS, type KeyKind, type Model } from './model.ts';
import { Enquire, Pull, RemovePortalLogin, type PullStarter } from './portals.ts';
import { Chat, checkWhatsAppNumbers, ConnectWhatsAppNumber, RemoveWhatsAppNumber, type ChatSpec } from './whatsapp.ts';
import { ACCOUNT, CALL_NUMBERS, describeFaults, FORM_IDS, Interleaving, MOBILES, PROJECTS, SEED_FORM_KEY, SEEDED_CALL_NUMBER, SEEDED_WHATSAPP_NUMBER, SHOP, WHATSAPP_NUMBERS, type StepFaults, type World } from './world.ts';

type ModelCommand = fc.AsyncCommand<Model, World>;

/** The context of an operator's command run alone, between steps. */
const noContext: StepContext = { concurrent: false, faulted: false, resentBeside: new Set(), numbersBeside: new Set(), releasedBeside: new Set() };

/** One step: its actions (one, or several at once), its faults, and the scheduler that interleaves them. */
export class Step implements ModelCommand {
  readonly actions: readonly Action[];
  readonly faults: StepFaults;
  readonly scheduler?: fc.Scheduler;

  constructor(actions: readonly Action[], faults: StepFaults, scheduler?: fc.Scheduler) {
    this.actions = actions;
    this.faults = faults;
    this.scheduler = scheduler;
  }

  check = () => true;

  async run(model: Model, world: World): Promise<void> {
    const together = this.actions.length > 1;
    const order = together && this.scheduler ? new Interleaving(this.scheduler) : undefined;
    const { result: settled, injected } = await world.step(this.faults, order, async () => {
      if (order) return order.run(this.actions.map((action) => () => action.perform(world, model)));
      const outcomes: PromiseSettledResult<Outcome>[] = [];
      for (const action of this.actions) outcomes.push({ status: 'fulfilled', value: await action.perform(world, model) });
      return outcomes;
    });
    const outcomes = settled.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
    const known = model.submissions.length;
    outcomes.forEach((outcome, i) => {
      const others = new Set(outcomes.flatMap((other, j) => (j === i ? [] : other.resends)));
      const numbersBeside = new Set(outcomes.flatMap((other, j) => (j === i ? [] : (other.numbers ?? []))));
      const releasedBeside = new Set(outcomes.flatMap((other, j) => (j === i ? [] : (other.released ?? []))));
      const waNumbersBeside = new Set(outcomes.flatMap((other, j) => (j === i ? [] : (other.waNumbers ?? []))));
      const context: StepContext = { concurrent: together, faulted: injected > 0, resentBeside: others, numbersBeside, releasedBeside, waNumbersBeside };
      outcome.settle(model, context);
    });
    const resent = new Set(outcomes.flatMap((outcome) => outcome.resends));
    const touched = [...model.submissions.slice(known), ...model.submissions.filter((s) => resent.has(s.marker))];
    for (const outcome of outcomes) outcome.afterStep?.(model, touched);
    if (outcomes.some((outcome) => outcome.numbers !== undefined)) await checkNumbers(model, world, `after ${this}`);
    if (outcomes.some((outcome) => outcome.waNumbers !== undefined)) await checkWhatsAppNumbers(model, world, `after ${this}`);
    await checkInvariants(world, model);
  }

  toString(): string {
    const faults = describeFaults(this.faults);
    const body = this.actions.map(String).join(' || ');
    return `${together(this.actions) ? `together(${body})` : body}${faults ? ` [${faults}]` : ''}${this.scheduler && together(this.actions) ? ` ${String(this.scheduler)}` : ''}`;
  }
}

const together = (actions: readonly Action[]) => actions.length > 1;

/** Rotates a key with no grace (`rotate-key --grace 0`): the old key answers 401 at once. */
export class RotateKey implements ModelCommand {
  readonly kind: KeyKind;

  constructor(kind: KeyKind) {
    this.kind = kind;
  }
  check = () => true;
  async run(model: Model, world: World): Promise<void> {
    const state = model.keys[this.kind];
    const answer = await world.admin('POST', `${ACCOUNT_KEYS_PATH}/${state.currentId}/rotate`, { graceSeconds: 0 });
    expectAnswer(answer, [[201]], noContext, `rotate the ${this.kind} key`);
    state.dead.push(state.current);
    state.current = answer.body.key;
    state.currentId = answer.body.key_id;
    await checkInvariants(world, model);
  }
  toString = () => `rotateKey(${this.kind})`;
}

/** Revokes a key, and (as its owner would) issues a new one of the same kind. */
export class RevokeKey implements ModelCommand {
  readonly kind: KeyKind;

  constructor(kind: KeyKind) {
    this.kind = kind;
  }
  check = () => true;
  async run(model: Model, world: World): Promise<void> {
    const state = model.keys[this.kind];
    const answer = await world.admin('DELETE', `${ACCOUNT_KEYS_PATH}/${state.currentId}`);
    expectAnswer(answer, [[204]], noContext, `revoke the ${this.kind} key`);
    state.dead.push(state.current);
    const issued = await world.service.issueScopedKey(keyOptionsOf(this.kind));
    state.current = issued.key;
    state.currentId = issued.keyId;
    await checkInvariants(world, model);
  }
  toString = () => `revokeKey(${this.kind})`;
}

const formPath = (formId: string) => `/admin/v1/accounts/${ACCOUNT}/google-forms/${formId}`;

/** `rotate-google-form-key`: the old key answers 401 at once. */
export class RotateFormKey implements ModelCommand {
  readonly form: number;

  constructor(form: number) {
    this.form = form;
  }
  check = (model: Readonly<Model>) => model.forms[this.form]!.current !== undefined;
  async run(model: Model, world: World): Promise<void> {
    const form = model.forms[this.form]!;
    const answer = await world.admin('POST', `${formPath(form.formId)}/rotate-key`);
    expectAnswer(answer, [[201]], noContext, `rotate the key of form ${form.formId}`);
    form.dead.push(form.current!);
    form.current = answer.body.key;
    await checkInvariants(world, model);
  }
  toString = () => `rotateFormKey(${this.form})`;
}

/** `remove-google-form`: every key of the form answers 401. */
export class RemoveForm implements ModelCommand {
  readonly form: number;

  constructor(form: number) {
    this.form = form;
  }
  check = (model: Readonly<Model>) => model.forms[this.form]!.current !== undefined;
  async run(model: Model, world: World): Promise<void> {
    const form = model.forms[this.form]!;
    const answer = await world.admin('DELETE', formPath(form.formId));
    expectAnswer(answer, [[204]], noContext, `remove form ${form.formId}`);
    form.dead.push(form.current!);
    form.current = undefined;
    await checkInvariants(world, model);
  }
  toString = () => `removeForm(${this.form})`;
}

/** Connects a removed form again (`add-google-form`): a new key. */
export class ReconnectForm implements ModelCommand {
  readonly form: number;

  constructor(form: number) {
    this.form = form;
  }
  check = (model: Readonly<Model>) => model.forms[this.form]!.current === undefined;
  async run(model: Model, world: World): Promise<void> {
    const form = model.forms[this.form]!;
    const answer = await world.admin('PUT', formPath(form.formId), { projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expectAnswer(answer, [[201]], noContext, `connect form ${form.formId} again`);
    form.current = answer.body.key;
    await checkInvariants(world, model);
  }
  toString = () => `reconnectForm(${this.form})`;
}

/**
 * Applies the seed again (`npm start` does at every start), then tries every key the model holds dead
 * (each must answer 401) and every live form key (each must still work: a seed never changes a key).
 * The seed moves its number back to the seed's project when it is connected, and never connects it
 * back once removed (section 14).
 */
export class Reseed implements ModelCommand {
  check = () => true;
  async run(model: Model, world: World): Promise<void> {
    await world.applyTheSeed();
    for (const number of model.numbers) {
      if (number.seeded && number.project !== undefined) number.project = PROJECTS.findIndex((p) => p.projectID === SEEDED_CALL_NUMBER.projectID);
    }
    await checkNumbers(model, world, 'after the seed was applied again');
    for (const number of model.waNumbers) {
      if (number.seeded && number.project !== undefined) number.project = PROJECTS.findIndex((p) => p.projectID === SEEDED_WHATSAPP_NUMBER.projectID);
    }
    await checkWhatsAppNumbers(model, world, 'after the seed was applied again');
    const body = { name: 'Probe Person', mobile_number: MOBILES[0], ...PROJECTS[0], notes: 'probe of a dead key' };
    for (const kind of KEY_KINDS) {
      const endpoint = KEY_ENDPOINTS[kind][0]!;
      for (const key of model.keys[kind].dead) {
        const answer = await world.service.call(endpoint, {
          apiKey: key,
          body: { ...body, ...(endpoint === 'website' && { sub_source: 'Skyline landing page', captcha_token: 'pass' }), ...(endpoint === 'social' && { platform: 'fb' }) },
          headers: kind === 'browser' || kind === 'captcha' ? { origin: SHOP } : {},
        });
        expectAnswer(answer, [[401, 'Invalid API credentials']], noContext, `a ${kind} key rotated or revoked before the seed was applied again`);
      }
    }
    for (const form of model.forms) {
      const probe = (key: string) =>
        world.service.deliver(deliveryJson({ leadId: `probe-${form.formId}-${key.slice(0, 6)}`, formId: form.formId, key, isTest: true, columns: standardColumns(MOBILES[0]) }));
      for (const key of form.dead) expectAnswer(await probe(key), [[401, 'Invalid google_key']], noContext, `a Google form key rotated or removed (${key === SEED_FORM_KEY ? 'the seed\'s' : 'issued'}) after the seed was applied again`);
      if (form.current) expectAnswer(await probe(form.current), [[200, 'Lead received']], noContext, `the current key of form ${form.formId} after the seed was applied again`);
    }
    await checkInvariants(world, model);
  }
  toString = () => 'reseed()';
}

// ---- arbitraries ------------------------------------------------------------------------------------

const rarely = (oneIn: number) => fc.integer({ min: 1, max: oneIn }).map((n) => n === 1);

const submitSpec: fc.Arbitrary<SubmitSpec> = fc.constantFrom(...KEY_KINDS).chain((kind) =>
  fc.record({
    kind: fc.constant(kind),
    // Mostly an endpoint the key may use; sometimes one it may not (403).
    endpoint: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...KEY_ENDPOINTS[kind]) }, { weight: 1, arbitrary: fc.constantFrom('website', 'portala', 'portalb', 'social' as const) }),
    deadKey: rarely(8),
    pick: fc.nat(7),
    project: fc.integer({ min: 0, max: 1 }),
    mobile: fc.integer({ min: 0, max: MOBILES.length - 1 }),
    email: fc.option(fc.integer({ min: 0, max: 1 }), { freq: 2, nil: undefined }),
    alternate: fc.option(fc.integer({ min: 0, max: MOBILES.length - 1 }), { freq: 3, nil: undefined }),
    // Quarantines meet conflicts, replays and releases often enough for `npm test`'s search (issue 37).
    honeypot: rarely(4),
    token: fc.constantFrom('once', 'once', 'once', 'fail', 'down', 'missing' as const),
    idempotent: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
    // A keyed request mostly sent again: its replay is where the challenge and the quarantine meet the key (issue 37).
    retries: fc.constantFrom(0, 1, 1, 2),
  }),
);

const deliverSpec: fc.Arbitrary<DeliverSpec> = fc.record({
  form: fc.integer({ min: 0, max: FORM_IDS.length - 1 }),
  deadKey: rarely(6),
  pick: fc.nat(7),
  mobile: fc.integer({ min: 0, max: MOBILES.length - 1 }),
  email: fc.option(fc.integer({ min: 0, max: 1 }), { freq: 2, nil: undefined }),
  kind: fc.constantFrom('valid', 'valid', 'valid', 'test', 'invalid' as const),
});

const callSpec: fc.Arbitrary<CallSpec> = fc.record({
  number: fc.integer({ min: 0, max: CALL_NUMBERS.length - 1 }),
  provider: fc.constantFrom('exotel', 'knowlarity', 'generic' as const),
  caller: fc.option(fc.integer({ min: 0, max: MOBILES.length - 1 }), { freq: 8, nil: undefined }),
  outbound: rarely(10),
  keyIn: fc.constantFrom('header', 'query' as const),
  twice: rarely(4),
  redeliveries: fc.constantFrom(0, 0, 0, 1),
});

const chatSpec: fc.Arbitrary<ChatSpec> = fc.record({
  number: fc.integer({ min: 0, max: WHATSAPP_NUMBERS.length - 1 }),
  sender: fc.option(fc.integer({ min: 0, max: MOBILES.length - 1 }), { freq: 8, nil: undefined }),
  twice: rarely(4),
  redeliveries: fc.constantFrom(0, 0, 0, 1),
  followUp: rarely(3),
});

const erase = fc.record({ by: fc.constantFrom('mobile', 'email' as const), index: fc.nat(2) }).map(({ by, index }) => new Erase(by, by === 'email' ? index % 2 : index));

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: submitSpec.map((spec) => new Submit(spec)) },
  { weight: 3, arbitrary: fc.nat(15).map((pick) => new Retry(pick)) },
  { weight: 2, arbitrary: fc.nat(15).map((pick) => new Release(pick)) },
  { weight: 2, arbitrary: erase },
  { weight: 1, arbitrary: fc.constant(null).map(() => new Sweep()) },
  { weight: 3, arbitrary: deliverSpec.map((spec) => new Deliver(spec)) },
  { weight: 3, arbitrary: callSpec.map((spec) => new Call(spec)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: CALL_NUMBERS.length - 1 }), fc.integer({ min: 0, max: PROJECTS.length - 1 }), fc.constantFrom('digits', 'international' as const))
      .map(([number, project, spelling]) => new ConnectNumber(number, project, spelling)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: CALL_NUMBERS.length - 1 }).map((number) => new RemoveNumber(number)) },
  { weight: 3, arbitrary: chatSpec.map((spec) => new Chat(spec)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: WHATSAPP_NUMBERS.length - 1 }), fc.integer({ min: 0, max: PROJECTS.length - 1 }))
      .map(([number, project]) => new ConnectWhatsAppNumber(number, project)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: WHATSAPP_NUMBERS.length - 1 }).map((number) => new RemoveWhatsAppNumber(number)) },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 0, max: MOBILES.length - 1 }), rarely(5)).map(([mobile, twice]) => new Enquire(mobile, twice)) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom<PullStarter>('schedule', 'schedule', 'pull-portal'), rarely(5)).map(([starter, fails]) => new Pull(starter, fails)) },
  { weight: 1, arbitrary: fc.constant(null).map(() => new RemovePortalLogin()) },
);

/**
 * A conflict mostly on a step's first transaction: a step of one action often writes only one (a lead's,
 * a quarantine record's), and a conflict on a later one would often find none (issue 37: a quarantine
 * record dropped on a conflict went unseen by `npm test`).
 */
const faults: fc.Arbitrary<StepFaults> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ loseWrite: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ conflictTransaction: fc.constantFrom(1, 1, 2, 3), conflictTimes: fc.constantFrom(1, 2, 6) }) },
);

/** `replayPath`: the one fast-check prints with a counterexample, to replay its commands as they ran. */
export const modelCommands = (maxCommands: number, replayPath?: string, size?: fc.SizeForArbitrary) =>
  fc.commands(
    [
      fc.oneof(
        { weight: 12, arbitrary: fc.tuple(action, faults).map(([one, stepFaults]) => new Step([one], stepFaults)) },
        {
          weight: 5,
          arbitrary: fc
            .tuple(fc.array(action, { minLength: 2, maxLength: 3 }), faults, fc.scheduler())
            .map(([actions, stepFaults, scheduler]) => new Step(actions, stepFaults, scheduler)),
        },
        { weight: 1, arbitrary: fc.constantFrom(...KEY_KINDS).map((kind) => new RotateKey(kind)) },
        { weight: 1, arbitrary: fc.constantFrom(...KEY_KINDS).map((kind) => new RevokeKey(kind)) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: FORM_IDS.length - 1 }).map((form) => new RotateFormKey(form)) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: FORM_IDS.length - 1 }).map((form) => new RemoveForm(form)) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: FORM_IDS.length - 1 }).map((form) => new ReconnectForm(form)) },
        { weight: 1, arbitrary: fc.constant(new Reseed()) },

      ) as fc.Arbitrary<ModelCommand>,
    ],
    { maxCommands, ...(replayPath && { replayPath }), ...(size && { size }) },
  );
