/**
 * Cases the model test runs in every `npm test`, whatever its random search draws: a soak's finds and
 * the defects the search must not miss (issue 37), written out as the steps they are. A seed and a
 * path would replay another case as soon as an arbitrary of commands.ts changes; steps do not.
 */
import * as fc from 'fast-check';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { Deliver, Erase, Release, Retry, Submit, Sweep, type Action, type SubmitSpec } from './actions.ts';
import { Step } from './commands.ts';
import { Enquire, Pull, RemovePortalLogin } from './portals.ts';
import type { StepFaults } from './world.ts';

export interface PinnedCase {
  /** What the case holds the service to, as a sentence. */
  readonly name: string;
  readonly setting: DuplicateSetting;
  readonly steps: () => readonly Step[];
}

/** A submission through the website endpoint with the server key, of person m0 in P1: each case says what differs. */
const submit = (spec: Partial<SubmitSpec>) =>
  new Submit({
    kind: 'server',
    endpoint: 'website',
    deadKey: false,
    pick: 0,
    project: 0,
    mobile: 0,
    email: undefined,
    alternate: undefined,
    honeypot: false,
    token: 'once',
    idempotent: true,
    retries: 0,
    ...spec,
  });

const alone = (action: Submit | Deliver | Retry | Erase | Sweep | Enquire | Pull | RemovePortalLogin, faults: StepFaults = {}) => new Step([action], faults);

/** Actions at once, interleaved at DynamoDB in the order of one fixed draw of fast-check's scheduler. */
const together = (actions: readonly Action[], order: number, faults: StepFaults = {}) => new Step(actions, faults, fc.sample(fc.scheduler(), { seed: order, numRuns: 1 })[0]!);

/** The retention sweep (CONTRACT.md section 18) beside a repeat, a release and a retry, in several orders each. */
const retentionCases: PinnedCase[] = [1, 2, 3].flatMap((order) => [
  {
    name: `a lead erased by retention while its repeat is in flight (order ${order}): the repeat is erased with it, or stays (an original, or linked to it without a claim); the next lead is an original`,
    setting: 'merge' as const,
    steps: () => [alone(submit({ idempotent: false })), together([submit({ idempotent: false }), new Sweep()], order), alone(submit({ idempotent: false }))],
  },
  {
    name: `a quarantined submission released while retention erases its record (order ${order}): one lead or none, no record left of it`,
    setting: 'ignore' as const,
    steps: () => [alone(submit({ kind: 'browser', honeypot: true, idempotent: false, mobile: 1 })), together([new Release(0), new Sweep()], order)],
  },
  {
    name: `a request sent again under its Idempotency-Key while retention erases its lead (order ${order}): never a second lead, nothing of the person left once erased`,
    setting: 'create' as const,
    steps: () => [alone(submit({ mobile: 2, email: 1 })), together([new Retry(0), new Sweep()], order), alone(new Retry(0))],
  },
]);

export const PINNED_CASES: readonly PinnedCase[] = [
  ...retentionCases,
  {
    // The soak's seed 1256128586 (issue 37): the model took the retry's new lead for a replay that brought the number back.
    name: 'a retry of a duplicate refused before its original and its alternate number were erased is checked again: a new original naming that number, new data sent after the erasure',
    setting: 'ignore',
    steps: () => [
      alone(submit({ mobile: 1, email: 0 })),
      // A duplicate of it (422), naming m0 as its alternate number: a refusal, not kept under its key.
      alone(submit({ mobile: 1, alternate: 0 })),
      alone(new Erase('email', 0)),
      alone(new Erase('mobile', 0)),
      // The latest of the two keyed submissions: the duplicate, sent again.
      alone(new Retry(1)),
    ],
  },
  {
    // Issue 37: a replay answered after the challenge asks the provider about a single-use token again, and refuses the stored lead's retry.
    name: 'a challenge key\'s request sent again with its Idempotency-Key gets its first answer, not a second challenge',
    setting: 'create',
    steps: () => [alone(submit({ kind: 'captcha', token: 'once', retries: 1 })), alone(new Retry(0))],
  },
  {
    // Issue 37: a quarantine record dropped when its transaction conflicts once leaves a 200 with nothing kept.
    name: 'a quarantine record whose write conflicts is written again: the honeypot\'s and the unanswered challenge\'s 200 each keep their record',
    setting: 'merge',
    steps: () => [
      alone(submit({ kind: 'browser', honeypot: true, idempotent: false }), { conflictTransaction: 1, conflictTimes: 1 }),
      alone(submit({ kind: 'captcha', token: 'down', mobile: 1 }), { conflictTransaction: 1, conflictTimes: 2 }),
      alone(submit({ kind: 'browser', honeypot: true, mobile: 2 }), { conflictTransaction: 1, conflictTimes: 6 }),
    ],
  },
  {
    // The soak's seed 1531870178: the model took a test lead's lead_id, redelivered after its record's erasure, for new data to be kept.
    name: 'a Google test lead whose record was written after two conflicts, then erased, is redelivered: 200, and its lead_id decided already, nothing is stored again',
    setting: 'ignore',
    steps: () => [
      alone(new Deliver({ form: 0, deadKey: false, pick: 0, mobile: 0, email: 0, kind: 'test' }), { conflictTransaction: 1, conflictTimes: 2 }),
      alone(new Erase('email', 0)),
      alone(new Retry(0), { conflictTransaction: 1, conflictTimes: 1 }),
    ],
  },
  {
    // The soak's seed 1482570259: the model kept a lead stored beside an erasure answered 503 for one its attempts could not have erased.
    name: 'an erasure of a person whose every attempt loses its last write answers 503, and may have erased the lead of that person answered 200 beside it',
    setting: 'merge',
    steps: () => [
      // Run in this order: the lead's transaction is write #1, the erasure's marker write #2, its
      // transaction erasing the lead #3, its marker's delete #4, lost on every attempt (the same request).
      new Step([submit({ kind: 'captcha', mobile: 1, alternate: 2 }), new Erase('mobile', 1)], { loseWrite: 4 }),
    ],
  },
  {
    // The soak's seed 777 (issue 43): a removal whose transaction met a conflict answered 404, the login still connected.
    name: 'a portal login whose removal conflicts once is removed (204), and its enquiries made after it are never pulled',
    setting: 'ignore',
    steps: () => [
      alone(new Enquire(0, false)),
      alone(new Pull('schedule', false)),
      alone(new RemovePortalLogin(), { conflictTransaction: 1, conflictTimes: 1 }),
      alone(new Enquire(1, false)),
      alone(new Pull('pull-portal', false)),
    ],
  },
];
