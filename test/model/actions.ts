/**
 * What the model's steps do, one request (or an operator's retried request) each: submit, retry with
 * the same bytes, release, erase, deliver from Google, deliver a call, connect or remove a number.
 * `perform` sends and reads the answer without touching the model; `settle` (run once every action of
 * the step has answered) checks the answer against what the contract allows and records it in the model.
 */
import type { CreateKeyInput } from '../../shared/domain/api-keys.ts';
import type { EndpointName } from '../../shared/routes.ts';
import { deliveryJson } from '../support/google-service.ts';
import type { Answer } from '../support/service.ts';
import { broken, KEY_ENDPOINTS, type AnswerSeen, type CallDecision, type KeyKind, type Model, type Submission } from './model.ts';
import { ACCOUNT, CAPTCHA_SECRET, EMAILS, MOBILES, PROJECTS, SHOP, type World } from './world.ts';

export const ACCOUNT_KEYS_PATH = `/admin/v1/accounts/${ACCOUNT}/keys`;

export interface StepContext {
  /** Other actions ran at the same time: answers that depend on their order are all allowed. */
  readonly concurrent: boolean;
  /** The relay injected a fault in this step: a 503 (with Retry-After) is allowed. */
  readonly faulted: boolean;
  /** Earlier submissions that another action of this step sent again. */
  readonly resentBeside: ReadonlySet<string>;
  /** Call numbers (indexes) another action of this step connected or removed. */
  readonly numbersBeside: ReadonlySet<number>;
  /** Earlier submissions whose quarantine record another action of this step released. */
  readonly releasedBeside: ReadonlySet<string>;
  /** WhatsApp numbers (indexes) another action of this step connected or removed. */
  readonly waNumbersBeside?: ReadonlySet<number>;
}

export interface Outcome {
  /** Earlier submissions this action sent again (a retry, a redelivery). */
  readonly resends: readonly string[];
  /** Call numbers (indexes) this action connected or removed: the step then checks the numbers listed. */
  readonly numbers?: readonly number[];
  /** Earlier submissions whose quarantine record this action released. */
  readonly released?: readonly string[];
  /** WhatsApp numbers (indexes) this action connected or removed: the step then checks the numbers listed. */
  readonly waNumbers?: readonly number[];
  readonly settle: (model: Model, context: StepContext) => void;
  /** After every action of the step has settled: the submissions the step added, and those it sent again. */
  readonly afterStep?: (model: Model, touched: readonly Submission[]) => void;
}

export interface Action {
  perform(world: World, model: Model): Promise<Outcome>;
  toString(): string;
}

/** An allowed answer: a status, and its exact message when it has one to check. */
export type Allowed = readonly [number, string?];

const fail = broken;

/** The running world's log lines, so a 500 is reported with what the service logged about it. */
export const serviceLogs: { lines: readonly Record<string, unknown>[] } = { lines: [] };

/**
 * The envelope of every answer (JSON, `x-request-id`), never a 500, a 503 only with Retry-After and
 * only when a fault was injected, and otherwise one of the allowed answers.
 */
export const expectAnswer = (answer: Answer, allowed: readonly Allowed[], context: StepContext, what: string): void => {
  const evidence = { status: answer.status, body: answer.body, allowed };
  if (!answer.headers['x-request-id']) fail(`${what}: an answer without x-request-id`, evidence);
  if (answer.status === 500) {
    const requestId = answer.headers['x-request-id'];
    fail(`${what}: answered 500`, { ...evidence, log: serviceLogs.lines.filter((line) => line.requestId === requestId) });
  }
  if (answer.status === 503 && context.faulted) {
    const retryAfter = Number(answer.headers['retry-after']);
    if (!Number.isInteger(retryAfter) || retryAfter < 1) fail(`${what}: a 503 without Retry-After`, { ...evidence, headers: answer.headers });
    return;
  }
  const matches = allowed.some(([status, message]) => answer.status === status && (message === undefined || answer.body?.message === message));
  if (!matches) fail(`${what}: answered ${answer.status} ${answer.body?.message ?? ''}`, evidence);
};

export const seen = (answer: Answer): AnswerSeen => ({
  status: answer.status,
  body: answer.body,
  requestId: answer.headers['x-request-id']!,
  replayed: answer.headers['idempotent-replayed'] === 'true',
});

/** The options a key of each kind is created with (a revoked key's owner makes a new one alike). */
export const keyOptionsOf = (kind: KeyKind): CreateKeyInput => {
  switch (kind) {
    case 'server':
      return { accountId: ACCOUNT };
    case 'scoped':
      return { accountId: ACCOUNT, endpoints: ['portala', 'portalb', 'social'] };
    case 'browser':
      return { accountId: ACCOUNT, origins: [SHOP] };
    case 'captcha':
      return { accountId: ACCOUNT, origins: [SHOP], captcha: { provider: 'turnstile', secret: CAPTCHA_SECRET } };
  }
};

const isBrowser = (kind: KeyKind) => kind === 'browser' || kind === 'captcha';

export interface SubmitSpec {
  readonly kind: KeyKind;
  readonly endpoint: EndpointName;
  /** Use a key of this kind that was rotated or revoked, when there is one. */
  readonly deadKey: boolean;
  readonly pick: number;
  readonly project: number;
  readonly mobile: number;
  readonly email: number | undefined;
  readonly alternate: number | undefined;
  /** The honeypot filled (browser keys on the website endpoint). */
  readonly honeypot: boolean;
  /** A challenge key's token: a single-use one that passes, one refused, a provider down, none. */
  readonly token: 'once' | 'fail' | 'down' | 'missing';
  readonly idempotent: boolean;
  /** With an Idempotency-Key: how often the sender sends it again at once (its answer was lost). */
  readonly retries: number;
}

/** A new submission through one of the four lead endpoints. */
export class Submit implements Action {
  readonly spec: SubmitSpec;

  constructor(spec: SubmitSpec) {
    this.spec = spec;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const { spec } = this;
    const marker = model.newMarker();
    const keys = model.keys[spec.kind];
    const dead = spec.deadKey && keys.dead.length > 0;
    const apiKey = dead ? keys.dead[spec.pick % keys.dead.length]! : keys.current;
    const mobile = MOBILES[spec.mobile]!;
    const alternate = spec.alternate === undefined || spec.alternate === spec.mobile ? undefined : MOBILES[spec.alternate]!;
    const email = spec.email === undefined ? undefined : EMAILS[spec.email]!;
    const browser = isBrowser(spec.kind);
    const honeypot = spec.honeypot && browser && spec.endpoint === 'website';
    const challenged = spec.kind === 'captcha' && spec.endpoint === 'website';
    // Single-use tokens are unique across runs (the fake provider outlives each run's service).
    const token = { once: `once-${world.service.tables.leads}-${marker}`, fail: 'fail', down: 'server-error', missing: undefined }[spec.token];
    const body = {
      name: 'Asha Verma',
      mobile_number: mobile,
      ...(email && { email }),
      ...(alternate && { alternate_number: alternate }),
      ...PROJECTS[spec.project]!,
      notes: `Enquiry ${marker}`,
      ...(spec.endpoint === 'website' && { sub_source: 'Skyline landing page' }),
      ...(spec.endpoint === 'social' && { platform: 'fb' }),
      ...(honeypot && { company_website: 'https://spam.example' }),
      ...(challenged && token !== undefined && { captcha_token: token }),
    };
    const headers: Record<string, string> = {
      ...(browser && { origin: SHOP }),
      ...(spec.idempotent && { 'idempotency-key': `idem-${marker}` }),
    };
    const rawBody = JSON.stringify(body);
    const send = () => world.service.call(spec.endpoint, { apiKey, rawBody, headers });
    const answer = await send();
    const again: Answer[] = [];
    for (let i = 0; spec.idempotent && i < spec.retries; i++) again.push(await send());

    return {
      resends: [],
      settle: (m, context) => {
        const quarantined200 = !dead && KEY_ENDPOINTS[spec.kind].includes(spec.endpoint) && (honeypot || (challenged && spec.token === 'down'));
        const allowed = dead
          ? [[401, 'Invalid API credentials'] as const]
          : !KEY_ENDPOINTS[spec.kind].includes(spec.endpoint)
            ? [[403, 'API key not allowed on this endpoint'] as const]
            : quarantined200
              ? [[200, 'Lead created successfully'] as const]
              : challenged && (spec.token === 'fail' || spec.token === 'missing')
                ? [[403, 'Captcha verification failed'] as const]
                : leadAnswers(m, context, spec.project, mobile);
        expectAnswer(answer, allowed, context, `${this}`);
        if (answer.status === 200 && !quarantined200 && spec.endpoint !== 'social' && !context.concurrent && !context.faulted) {
          const repeat = m.originals.has(`${PROJECTS[spec.project]!.projectID}|${mobile}`);
          if (answer.body.data?.is_repeated !== repeat) fail(`${this}: is_repeated is ${answer.body.data?.is_repeated}, the model says ${repeat}`, answer.body);
        }
        const submission = {
          marker,
          via: spec.endpoint,
          resend: send,
          apiKey,
          ...(spec.idempotent && { idempotencyKey: headers['idempotency-key'] }),
          project: PROJECTS[spec.project]!.projectID,
          mobile,
          ...(email && { email }),
          ...(alternate && { alternate }),
          quarantined200,
          answers: [seen(answer)],
          releases: [],
          recordIds: [],
        } as Submission;
        m.submissions.push(submission);
        again.forEach((repeat, i) => settleRepeat(m, submission, repeat, context, `${this}, sent again (${i + 1})`));
      },
    };
  }

  toString(): string {
    const s = this.spec;
    const person = `m${s.mobile}${s.email === undefined ? '' : ` e${s.email}`}${s.alternate === undefined ? '' : ` alt${s.alternate}`}`;
    const extras = [s.deadKey && 'a dead key if any', s.honeypot && 'honeypot', s.kind === 'captcha' && `token ${s.token}`, s.idempotent && 'Idempotency-Key', s.idempotent && s.retries > 0 && `sent ${s.retries + 1} times`].filter(Boolean);
    return `submit(${s.endpoint}, ${s.kind} key, P${s.project + 1}, ${person}${extras.length ? `, ${extras.join(', ')}` : ''})`;
  }
}

/** A new lead's answers: 200, or under `ignore` the duplicate's 422 when an original exists (either, when the order is not known). */
const leadAnswers = (model: Model, context: StepContext, project: number, mobile: string): Allowed[] => {
  const duplicate = model.originals.has(`${PROJECTS[project]!.projectID}|${mobile}`);
  if (model.setting !== 'ignore') return [[200, 'Lead created successfully']];
  if (context.concurrent) return [[200, 'Lead created successfully'], [422, 'Lead already exists']];
  return duplicate ? [[422, 'Lead already exists']] : [[200, 'Lead created successfully']];
};

/** The sender repeats a submission with the same bytes and the same Idempotency-Key (Google: redelivers the lead_id). */
export class Retry implements Action {
  readonly pick: number;

  constructor(pick: number) {
    this.pick = pick;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const candidates = model.retryable();
    if (candidates.length === 0) return { resends: [], settle: () => undefined };
    // Mostly one of the latest (a sender retries soon after a lost answer), sometimes any.
    const recent = candidates.slice(-3);
    const submission = this.pick < 8 ? recent[this.pick % recent.length]! : candidates[this.pick % candidates.length]!;
    const answer = await submission.resend();
    return {
      resends: [submission.marker],
      settle: (m, context) => settleRepeat(m, submission, answer, context, `${this} of ${submission.marker}`),
    };
  }

  toString = () => `retry(#${this.pick})`;
}


/**
 * The answer to a submission sent again with the same bytes (the same Idempotency-Key, or Google's
 * lead_id): the answer it already had, replayed, before any check that could answer differently
 * (CONTRACT.md section 14); 409 `Lead was erased` for an erased lead; 401 for a key dead since.
 */
/** An answer's lead without its alternate number (what an erasure of that number leaves of it). */
const withoutAlternateNumber = (body: any): unknown => {
  if (!body?.data || typeof body.data !== 'object') return body;
  const { alternate_number: _erased, ...lead } = body.data as Record<string, unknown>;
  return { ...body, data: lead };
};

/** Whether a platform id's first delivery has decided already: its lead or record was seen, or it was answered 200 (since its erasure, if any). */
const decidedAlready = (s: Submission): boolean => s.leadSeen === true || s.recordSeen === true || s.answers.slice(s.since ?? 0).some((a) => a.status === 200);

const settleRepeat = (m: Model, s: Submission, answer: Answer, context: StepContext, what: string): void => {
  if (s.via === 'whatsapp') {
    // A redelivery finds its number as it is when it arrives (section 15). When nothing was stored before,
    // a number removed before it or beside it makes its 200 store nothing, where a connected one stores the
    // chat: either may be right (found by the soak: seed 1385055490, a chat's first delivery conflicted
    // to a 503, then its redelivery ran beside the removal of its number).
    const index = m.waNumbers.findIndex((n) => n.phoneNumberId === s.phoneNumberId);
    const number = m.waNumbers[index]!;
    if (!decidedAlready(s) && (context.waNumbersBeside?.has(index) === true || number.unknown === true || number.project === undefined)) s.loose = true;
  }
  if (s.via === 'call' || s.via === 'whatsapp') {
    settleCallAgain(s, answer, context, what);
    return;
  }
  const firstOk = s.wasErased ? undefined : s.answers.find((a) => a.status === 200);
  // A lead_id whose lead or record was stored keeps its claim past the erasure of what it stored
  // (section 14: the first delivery decides, and no repeat brings an erased person back), as a call id
  // does: its redelivery answers 200 and stores nothing (found by the soak: seed 1531870178, a test
  // lead's record erased, then its lead_id redelivered).
  const decidedBefore = s.via === 'google' && decidedAlready(s);
  if (s.via === 'google') {
    const form = m.forms.find((f) => f.formId === s.formId)!;
    const alive = form.current === s.googleKey;
    expectAnswer(answer, alive ? [[200, 'Lead received'], [409]] : [[401, 'Invalid google_key']], context, what);
  } else if (keyIsDead(m, s)) {
    expectAnswer(answer, [[401, 'Invalid API credentials']], context, what);
  } else if (s.erased?.role === 'person' && s.erased.hadLead && !context.concurrent) {
    expectAnswer(answer, [[409, 'Lead was erased']], context, what);
  } else if (firstOk && !s.erased && !s.mayBeErased && !s.releases.some((r) => r.status === 200 || r.status === 503)) {
    // The answer already given, again, before any check that could answer differently (section 14);
    // beside an erasure, which may have erased it since, 409.
    expectAnswer(answer, [[200, 'Lead created successfully'], ...(context.concurrent ? [[409, 'Lead was erased'] as const] : [])], context, what);
    if (answer.status === 200) {
      if (answer.headers['idempotent-replayed'] !== 'true') fail(`${what}: a repeat of an answered key was not replayed`, { first: firstOk, again: answer.body });
      // Beside an erasure of its alternate number, the replay may already be the lead without it (section 14: no replay brings an erased person back).
      // Beside a release of its quarantine, the lead the release stored (section 14: the release and the request are one lead; found by the soak).
      const sameAnswer =
        JSON.stringify(answer.body) === JSON.stringify(firstOk.body) ||
        (context.concurrent && JSON.stringify(answer.body) === JSON.stringify(withoutAlternateNumber(firstOk.body))) ||
        (context.releasedBeside.has(s.marker) && s.quarantined200 && typeof answer.body?.data?.id === 'string');
      if (!sameAnswer) fail(`${what}: the replay differs from the first answer`, { first: firstOk.body, again: answer.body });
    }
  } else {
    expectAnswer(
      answer,
      [[200, 'Lead created successfully'], [403, 'Captcha verification failed'], [403, 'API key not allowed on this endpoint'], [422, 'Lead already exists'], [409, 'Lead was erased']],
      context,
      what,
    );
  }
  s.answers.push(seen(answer));
  // An erased lead's repeat stores nothing (Google's redelivery answers 200 all the same), and an
  // erased alternate number leaves the lead, whose retry is answered by it: nothing new. A repeat of
  // one that made no lead (a duplicate's 422, a failed challenge, a lead_id never answered 200) is not
  // replayed: not refused as erased, what it stores now (a record naming the erased person or
  // alternate number again) is new data sent after the erasure (the alternate number's case found by
  // the soak once calls joined the model). So is a lead: a duplicate's 422 is a refusal, not kept
  // (README, retry-safe submissions), and once an erasure took the original it refused against, its
  // repeat is checked again and stored as a new original (section 12) with the alternate number it
  // names (found by the soak: seed 1256128586). A replayed 200 for an erased alternate number's
  // submission (a quarantine's) is the answer it had, and may not bring the number back.
  const replayed = answer.status === 200 && answer.headers['idempotent-replayed'] === 'true';
  const anew = s.erased?.role === 'person' ? answer.status !== 409 : answer.status !== 409 && !replayed;
  if (s.erased && anew && !s.erased.hadLead && !decidedBefore) {
    s.erased = undefined;
    s.wasErased = true;
    s.since = s.answers.length - 1;
    s.releases.length = 0;
  }
};

const keyIsDead = (model: Model, s: Submission) => Object.values(model.keys).some((k) => k.dead.includes(s.apiKey!));

/** An operator releases a quarantine record of a submission (`POST .../rejections/{id}/release`). */
export class Release implements Action {
  readonly pick: number;

  constructor(pick: number) {
    this.pick = pick;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const candidates = model.releasable();
    if (candidates.length === 0) return { resends: [], settle: () => undefined };
    const submission = candidates[this.pick % candidates.length]!;
    const recordId = submission.recordIds[this.pick % submission.recordIds.length]!;
    const answer = await world.admin('POST', `/admin/v1/accounts/${ACCOUNT}/rejections/${recordId}/release`);
    return {
      resends: [],
      released: [submission.marker],
      settle: (m, context) => {
        const s = submission;
        const what = `${this} of ${s.marker} (record ${recordId})`;
        const releasedBefore = s.releases.some((r) => r.status === 200);
        // Its key already made the lead (section 14): the release and the request are one lead.
        const leadByKey = !s.quarantined200 && s.answers.some((a) => a.status === 200);
        const all: Allowed[] = [[200, 'Lead created successfully'], [409, 'Already released'], [422, 'Lead already exists'], [404, 'Rejection not found']];
        const allowed: Allowed[] = context.concurrent
          ? all
          : s.erased?.role === 'person' || s.erased?.role === 'alternate'
            ? [[404, 'Rejection not found']]
            : releasedBefore || leadByKey
              ? [[409, 'Already released']]
              : s.releases.some((r) => r.status === 503)
                ? // A release answered 503 (its answer lost after the write) may have stored the lead: 409 then, or the lead now.
                  [[409, 'Already released'], ...leadAnswers(m, context, PROJECTS.findIndex((p) => s.project === p.projectID), s.mobile)]
                : leadAnswers(m, context, PROJECTS.findIndex((p) => s.project === p.projectID), s.mobile);
        expectAnswer(answer, allowed, context, what);
        s.releases.push(seen(answer));
      },
    };
  }

  toString = () => `release(#${this.pick})`;
}

/** An erasure of a person by mobile or e-mail (`POST .../erasures`), retried by the operator after a 503. */
export class Erase implements Action {
  readonly by: 'mobile' | 'email';
  readonly index: number;

  constructor(by: 'mobile' | 'email', index: number) {
    this.by = by;
    this.index = index;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const value = this.by === 'mobile' ? MOBILES[this.index]! : EMAILS[this.index]!;
    // Everything the model knows of before the erasure starts.
    const before = [...model.submissions];
    const names = (s: Submission) => (this.by === 'mobile' ? s.mobile === value || s.alternate === value : s.email === value);
    // Answered 200, or 503 after the operator's retries: either way it ran, and may have erased what was stored beside it.
    let ran = false;
    let answer = await world.admin('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, this.by === 'mobile' ? { mobile_number: value } : { email: value });
    for (let again = 0; again < 2 && answer.status === 503; again++) {
      answer = await world.admin('POST', `/admin/v1/accounts/${ACCOUNT}/erasures`, this.by === 'mobile' ? { mobile_number: value } : { email: value });
    }
    return {
      resends: [],
      settle: (m, context) => {
        expectAnswer(answer, [[200]], context, `${this}`);
        ran = true;
        if (answer.status !== 200) {
          // Not answered (a 503 after its retries): it may have erased some of the person's items.
          for (const s of before) if (names(s) && !s.erased) s.mayBeErased = true;
          // Among them, by e-mail, an original whose repeats do not name the e-mail: those repeats stay (section 12), as after a 200.
          if (this.by === 'email') {
            const erased = before.filter(names).map((s) => `${s.project}|${s.mobile}`);
            const untouched = before.filter((s) => !names(s)).map((s) => s.marker);
            m.emailErasure = { erased: new Set([...(m.emailErasure?.erased ?? []), ...erased]), untouched: new Set([...(m.emailErasure?.untouched ?? []), ...untouched]) };
          }
          return;
        }
        const erased = new Set<string>();
        const untouched = new Set<string>();
        for (const s of before) {
          // A submission sent again beside the erasure may be stored after it, as a new lead of the person.
          if (context.resentBeside.has(s.marker)) continue;
          const hadLead = s.erased?.hadLead ?? s.leadSeen === true;
          if (this.by === 'mobile' ? s.mobile === value : s.email === value) {
            s.erased = { role: 'person', hadLead };
            erased.add(`${s.project}|${s.mobile}`);
          } else {
            untouched.add(s.marker);
            if (this.by === 'mobile' && s.alternate === value && s.erased?.role !== 'person') s.erased = { role: 'alternate', number: value, hadLead };
          }
        }
        if (this.by === 'email') {
          m.emailErasure = { erased: new Set([...(m.emailErasure?.erased ?? []), ...erased]), untouched: new Set([...(m.emailErasure?.untouched ?? []), ...untouched]) };
        }
      },
      afterStep: (m, touched) => {
        if (!ran) return;
        // A submission of the person stored beside it may have been erased by it, answered or not: an
        // unanswered erasure's last attempt may come after that submission's 200 (the soak's seed
        // 1482570259: the erasure's own marker delete lost on every attempt, a lead stored between two).
        for (const s of touched) if (names(s) && !s.erased) s.mayBeErased = true;
        // A repeat stored beside an e-mail erasure that does not name it took effect before the
        // erasure (an orphan, as one stored earlier) or after it (an original): either order is allowed.
        if (this.by === 'email' && m.emailErasure) {
          const beside = touched.filter((s) => !names(s)).map((s) => s.marker);
          // A lead of the e-mail sent beside it may have been stored, as an original, and erased: its mobile's repeats are orphans as above.
          const erasedBeside = touched.filter(names).map((s) => `${s.project}|${s.mobile}`);
          m.emailErasure = { erased: new Set([...m.emailErasure.erased, ...erasedBeside]), untouched: new Set([...m.emailErasure.untouched, ...beside]) };
        }
      },
    };
  }

  toString = () => `erase(${this.by} ${this.index})`;
}

/**
 * The retention sweep (CONTRACT.md section 18) with the account keeping its leads 30 days, run as if 30
 * days had passed since it started: every lead and record stored before it began has aged out and is
 * erased whole, as a person's erasure erases them; what is stored beside it may or may not be, by the
 * order things happened (a repeat in flight, a release, a retry with the same Idempotency-Key). A run
 * that failed under the step's faults (each of its erasures is one transaction) may have erased any of
 * them, and the operator's schedule runs it again: it is tried three times, as the schedule retries.
 */
export class Sweep implements Action {
  async perform(world: World, model: Model): Promise<Outcome> {
    const before = [...model.submissions];
    const start = Date.now();
    let swept = false;
    for (let attempt = 0; attempt < 3 && !swept; attempt++) {
      try {
        await world.sweep(30, new Date(start + 30 * 86_400_000));
        swept = true;
      } catch {
        // Refused under the step's faults (a lost answer, a conflict): the next attempt goes on.
      }
    }
    const erased = new Set<string>();
    return {
      resends: [],
      settle: (_m, context) => {
        for (const s of before) {
          erased.add(`${s.project}|${s.mobile}`);
          const beside = context.resentBeside.has(s.marker) || context.releasedBeside.has(s.marker);
          if (!swept || beside) {
            if (!s.erased) s.mayBeErased = true;
            continue;
          }
          s.erased = { role: 'person', hadLead: s.erased?.hadLead ?? s.leadSeen === true };
        }
      },
      afterStep: (m, touched) => {
        // Stored beside it: its created_at may be before the cutoff, its write after the sweep's query or not.
        for (const s of touched) if (!s.erased) s.mayBeErased = true;
        // Retention erases leads, not people: a repeat stored beside it whose original it erased (its
        // claim read before the claim went) stays, linked to the erased lead, without a claim, as a
        // younger repeat of an aged-out original does (docs/data-model.md); the next lead is an original.
        const untouched = touched.map((s) => s.marker);
        m.emailErasure = { erased: new Set([...(m.emailErasure?.erased ?? []), ...erased]), untouched: new Set([...(m.emailErasure?.untouched ?? []), ...untouched]) };
      },
    };
  }

  toString = () => 'retention sweep';
}

export interface DeliverSpec {
  readonly form: number;
  readonly deadKey: boolean;
  readonly pick: number;
  readonly mobile: number;
  readonly email: number | undefined;
  /** A lead, Google's test data, or a lead whose phone number is invalid. */
  readonly kind: 'valid' | 'test' | 'invalid';
}

/** Google delivers a new lead_id of a form, with the form's key (or one rotated or removed). */
export class Deliver implements Action {
  readonly spec: DeliverSpec;

  constructor(spec: DeliverSpec) {
    this.spec = spec;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const { spec } = this;
    const marker = model.newMarker();
    const form = model.forms[spec.form]!;
    const dead = (spec.deadKey || form.current === undefined) && form.dead.length > 0;
    const key = dead ? form.dead[spec.pick % form.dead.length]! : (form.current ?? 'never-a-key');
    const mobile = MOBILES[spec.mobile]!;
    const email = spec.email === undefined ? undefined : EMAILS[spec.email]!;
    const text = deliveryJson({
      leadId: `gl-${marker}`,
      formId: form.formId,
      key,
      isTest: spec.kind === 'test',
      columns: [
        { column_id: 'FULL_NAME', column_name: 'Full Name', string_value: 'Ravi Kumar' },
        { column_id: 'PHONE_NUMBER', column_name: 'User Phone', string_value: spec.kind === 'invalid' ? '+91 12345' : `+91${mobile}` },
        ...(email ? [{ column_id: 'EMAIL', column_name: 'Email', string_value: email }] : []),
        { column_name: 'Ref', string_value: marker },
      ],
    });
    const send = () => world.service.deliver(text);
    const answer = await send();
    return {
      resends: [],
      settle: (m, context) => {
        const alive = !dead && form.current !== undefined;
        expectAnswer(answer, alive ? [[200, 'Lead received']] : [[401, 'Invalid google_key']], context, `${this}`);
        m.submissions.push({
          marker,
          via: 'google',
          resend: send,
          googleKey: key,
          formId: form.formId,
          project: 'PRJ-1',
          // An invalid phone number names no one: its record is found by no mobile.
          mobile: spec.kind === 'invalid' ? 'not a mobile' : mobile,
          ...(email && { email }),
          quarantined200: false,
          answers: [seen(answer)],
          releases: [],
          recordIds: [],
        } as Submission);
      },
    };
  }

  toString(): string {
    const s = this.spec;
    return `deliver(form ${s.form}, ${s.kind}, m${s.mobile}${s.email === undefined ? '' : ` e${s.email}`}${s.deadKey ? ', a dead key if any' : ''})`;
  }
}

export interface CallSpec {
  /** The number called (CALL_NUMBERS), connected or not as the model's numbers say. */
  readonly number: number;
  readonly provider: 'exotel' | 'knowlarity' | 'generic';
  /** The caller among the model's mobiles, or withheld (`anonymous`: no mobile, a validation record). */
  readonly caller: number | undefined;
  /** A call out: ignored, never stored. */
  readonly outbound: boolean;
  /** Where the calls key goes: `x-api-key`, or `?key=` for a provider that cannot set headers. */
  readonly keyIn: 'header' | 'query';
  /** Delivered twice at once (the provider's retry overtaking its first try). */
  readonly twice: boolean;
  /** How often the provider delivers it again after its answer. */
  readonly redeliveries: number;
}

export const CALL_RECEIVED = 'Call received';
export const NOTIFICATION_RECEIVED = 'Notification received';

/** A provider's notification, in its own field names and number spellings (CONTRACT.md section 13), by GET query, JSON or a form. */
const callDelivery = (spec: CallSpec, callId: string, caller: string, called: string) => {
  switch (spec.provider) {
    case 'exotel':
      // Exotel's Passthru is a GET, its values at times in double quotes.
      return { provider: 'exotel', method: 'GET' as const, query: { CallSid: `"${callId}"`, CallFrom: caller === 'anonymous' ? caller : `0${caller}`, CallTo: `0${called}`, CallType: 'completed', Direction: spec.outbound ? 'outbound-api' : 'incoming' } };
    case 'knowlarity':
      return { provider: 'knowlarity', json: { callid: callId, caller_id: caller === 'anonymous' ? caller : `+91${caller}`, dispnumber: `+91${called}`, call_duration: 9, call_direction: spec.outbound ? 'outbound' : 'inbound' } };
    case 'generic':
      return { provider: 'generic', form: { call_id: callId, caller_number: caller, called_number: called, status: 'missed', direction: spec.outbound ? 'outbound' : 'inbound' } };
  }
};

/**
 * Section 3's duplicates for the first delivery of a connected channel (a call number, a WhatsApp number):
 * a lead under the channel's project, a repeat when the mobile has an original there, or under Ignore a
 * `duplicate_lead` record instead.
 */
export const channelLeadDecisionOf = (m: Model, project: number, mobile: number): CallDecision => {
  const { projectID, campaignID } = PROJECTS[project]!;
  const original = m.originals.has(`${projectID}|${MOBILES[mobile]!}`);
  if (original && m.setting === 'ignore') return { kind: 'record', reason: 'duplicate_lead' };
  return { kind: 'lead', project: projectID, campaign: campaignID, repeat: original };
};

/** What the first delivery of a call decides in the model's state (section 13's order): the number, then the caller, then section 3's duplicates. */
const callDecisionOf = (m: Model, spec: CallSpec): CallDecision => {
  const connected = m.numbers[spec.number]!.project;
  if (connected === undefined) return { kind: 'record', reason: 'call_number_not_connected' };
  if (spec.caller === undefined) return { kind: 'record', reason: 'validation' };
  return channelLeadDecisionOf(m, connected, spec.caller);
};

/** A telephony provider tells the service of a call to one of the model's numbers: a new call id. */
export class Call implements Action {
  readonly spec: CallSpec;

  constructor(spec: CallSpec) {
    this.spec = spec;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const { spec } = this;
    const marker = model.newMarker();
    const callId = `${spec.provider}-${marker}`;
    const number = model.numbers[spec.number]!;
    const connected = number.project;
    const caller = spec.caller === undefined ? 'anonymous' : MOBILES[spec.caller]!;
    const parts = callDelivery(spec, callId, caller, number.number);
    const send = () => world.deliverCall(parts, spec.keyIn);
    const first = spec.twice ? await Promise.all([send(), send()]) : [await send()];
    const again: Answer[] = [];
    for (let i = 0; i < spec.redeliveries; i++) again.push(await send());

    return {
      resends: [],
      settle: (m, context) => {
        first.forEach((answer) => expectAnswer(answer, [[200, CALL_RECEIVED]], context, `${this}`));
        // In a step of its own nothing else changes the model's state: every delivery of it decides alike.
        const decided = !spec.outbound && !context.concurrent && [...first, ...again].some((answer) => answer.status === 200);
        const submission = {
          marker,
          via: 'call',
          resend: send,
          provider: spec.provider,
          callId,
          calledNumber: number.number,
          ...(spec.outbound && { outbound: true }),
          ...(decided && { callDecision: callDecisionOf(m, spec) }),
          project: connected === undefined ? 'not connected' : PROJECTS[connected]!.projectID,
          // A withheld caller names no one: its record is found by no mobile.
          mobile: spec.caller === undefined ? 'not a mobile' : caller,
          quarantined200: false,
          answers: first.map(seen),
          releases: [],
          recordIds: [],
        } as Submission;
        m.submissions.push(submission);
        again.forEach((answer, i) => settleCallAgain(submission, answer, context, `${this}, delivered again (${i + 1})`));
      },
    };
  }

  toString(): string {
    const s = this.spec;
    const extras = [s.outbound && 'a call out', s.keyIn === 'query' && 'key in the query', s.twice && 'twice at once', s.redeliveries > 0 && `delivered again x${s.redeliveries}`].filter(Boolean);
    return `call(${s.provider}, number ${s.number}, ${s.caller === undefined ? 'withheld' : `m${s.caller}`}${extras.length ? `, ${extras.join(', ')}` : ''})`;
  }
}

/**
 * A call's id delivered again: 200 `Call received` whatever became of it, and nothing new stored (the
 * first delivery decided, section 13). A call whose lead or record was erased stays erased (its claim
 * outlives the erasure: a redelivery stores nothing); one that was never stored (its deliveries all
 * answered 503) is, delivered after its caller's erasure, new data of the person.
 */
export const settleCallAgain = (s: Submission, answer: Answer, context: StepContext, what: string): void => {
  // A WhatsApp message id delivered again is the same (section 15): 200 whatever became of it, nothing new.
  expectAnswer(answer, [[200, s.via === 'whatsapp' ? NOTIFICATION_RECEIVED : CALL_RECEIVED]], context, what);
  const stored = decidedAlready(s);
  s.answers.push(seen(answer));
  if (s.erased?.role === 'person' && !stored && !s.outbound) {
    s.erased = undefined;
    s.wasErased = true;
    s.since = s.answers.length - 1;
  }
};

const numberPath = (number: string) => `/admin/v1/accounts/${ACCOUNT}/call-numbers/${encodeURIComponent(number)}`;

/**
 * The account's numbers as the admin API lists them are the model's: each connected one to its project
 * and campaign, no other. After a step whose outcome for a number the model cannot know (its change
 * answered 503 to the end, or another change of it ran at once), the list is what the model takes.
 */
export const checkNumbers = async (model: Model, world: World, when: string): Promise<void> => {
  const answer = await world.admin('GET', `/admin/v1/accounts/${ACCOUNT}/call-numbers`);
  expectAnswer(answer, [[200]], { concurrent: false, faulted: false, resentBeside: new Set(), numbersBeside: new Set(), releasedBeside: new Set() }, `list the call numbers ${when}`);
  const listed = new Map((answer.body as { number: string; project_id: string; campaign_id: string }[]).map((n) => [n.number, n]));
  for (const state of model.numbers) {
    const found = listed.get(state.number);
    const project = found && PROJECTS.findIndex((p) => p.projectID === found.project_id && p.campaignID === found.campaign_id);
    if (state.unknown) {
      state.project = project;
      state.unknown = false;
    } else if (project !== state.project) {
      fail(`call number ${state.number} is listed ${found ? `connected to ${found.project_id}/${found.campaign_id}` : 'not connected'} ${when}; the model says ${state.project === undefined ? 'not connected' : PROJECTS[state.project]!.projectID}`, { listed: answer.body });
    }
    listed.delete(state.number);
  }
  if (listed.size > 0) fail(`call numbers the model never connected are listed ${when}`, [...listed.values()]);
};

/** Sends an operator's request, and again (as the operator does) after a 503, at most twice. */
export const operatorSends = async (send: () => Promise<Answer>): Promise<Answer[]> => {
  const answers = [await send()];
  while (answers.length < 3 && answers.at(-1)!.status === 503) answers.push(await send());
  return answers;
};

/**
 * The operator connects a number to a project (`PUT .../call-numbers/{number}`, in another spelling at
 * times): 201 when it was not connected, 200 when it moves (or stays). After a 503 (its write may have
 * landed) or beside another change of the number, either; its next call in a step of its own is a lead there.
 */
export class ConnectNumber implements Action {
  readonly number: number;
  readonly project: number;
  readonly spelling: 'digits' | 'international';

  constructor(number: number, project: number, spelling: 'digits' | 'international') {
    this.number = number;
    this.project = project;
    this.spelling = spelling;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const state = model.numbers[this.number]!;
    const wasConnected = state.project !== undefined;
    const { projectID, campaignID } = PROJECTS[this.project]!;
    const path = numberPath(this.spelling === 'digits' ? state.number : `+91 ${state.number}`);
    const answers = await operatorSends(() => world.admin('PUT', path, { projectId: projectID, campaignId: campaignID }));
    return {
      resends: [],
      numbers: [this.number],
      settle: (m, context) => {
        const either = context.numbersBeside.has(this.number) || answers.length > 1;
        const allowed: Allowed[] = either ? [[201], [200]] : [[wasConnected ? 200 : 201]];
        answers.forEach((answer, i) => expectAnswer(answer, allowed, context, `${this}${i > 0 ? `, sent again (${i})` : ''}`));
        const last = answers.at(-1)!;
        if (last.status === 200 || last.status === 201) {
          if (last.body?.number !== state.number || last.body?.project_id !== projectID || last.body?.campaign_id !== campaignID) fail(`${this}: answered another number`, last.body);
          state.project = this.project;
        }
        if (last.status === 503 || context.numbersBeside.has(this.number)) state.unknown = true;
      },
    };
  }

  toString = () => `connectNumber(${this.number}, P${this.project + 1}${this.spelling === 'international' ? ', +91 …' : ''})`;
}

/** The operator removes a number (`DELETE .../call-numbers/{number}`): 204, or 404 `Call number not found` when it is not connected; its calls are then records. */
export class RemoveNumber implements Action {
  readonly number: number;

  constructor(number: number) {
    this.number = number;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const state = model.numbers[this.number]!;
    const wasConnected = state.project !== undefined;
    const answers = await operatorSends(() => world.admin('DELETE', numberPath(state.number)));
    return {
      resends: [],
      numbers: [this.number],
      settle: (m, context) => {
        const either = context.numbersBeside.has(this.number) || answers.length > 1;
        const notConnected: Allowed = [404, 'Call number not found'];
        const allowed: Allowed[] = either ? [[204], notConnected] : [wasConnected ? [204] : notConnected];
        answers.forEach((answer, i) => expectAnswer(answer, allowed, context, `${this}${i > 0 ? `, sent again (${i})` : ''}`));
        const last = answers.at(-1)!;
        if (last.status === 204 || last.status === 404) state.project = undefined;
        if (last.status === 503 || context.numbersBeside.has(this.number)) state.unknown = true;
      },
    };
  }

  toString = () => `removeNumber(${this.number})`;
}
