/**
 * Portal enquiries pulled, in the model (CONTRACT.md section 17): buyers enquire on 99acres about the
 * model's projects (the seed connects one login), and the service pulls: the schedule's pull, and an
 * operator's `pull-portal` (the domain function the CLI and the admin API call), alone, twice at once,
 * beside everything else, with the portal failing at times; the operator removes the login. What a pull
 * must do is checked after every step (model.ts checkEnquiry): an enquiry a pull got through is one lead
 * or one record, never two, however often it is pulled again (the overlap), and an erased lead's
 * enquiry is never pulled back in; an enquiry of a removed login is never stored.
 */
import { RetryLaterError } from '../../shared/domain/errors.ts';
import { PortalLoginNotFoundError } from '../../shared/pulled/logins.ts';
import { PortalPullBusyError, pullLogin, pullPortalNow, type PullSummary } from '../../shared/pulled/pull.ts';
import { istText } from '../support/fake-portals.ts';
import { expectAnswer, operatorSends, type Action, type Outcome, type StepContext } from './actions.ts';
import { broken, type Model, type Submission } from './model.ts';
import { ACCOUNT, MOBILES, PORTAL_LOGIN, type World } from './world.ts';

/** Who starts a pull: the schedule (a busy login is skipped), or the operator's `pull-portal` (a busy login is refused). */
export type PullStarter = 'schedule' | 'pull-portal';

export interface PortalState {
  /** The seed's login is connected until the operator removes it (a seed never connects it again). */
  connected: boolean;
  /** A removal ran beside other actions or answered 503: whether it took is read back at the next pull. */
  unknown?: boolean;
}

/** A buyer's enquiry on 99acres: found by the pull that reads its window, a lead or a record then. */
export class Enquire implements Action {
  readonly mobile: number;
  readonly twice: boolean;

  /** `twice`: the portal lists the same enquiry id twice in its answer (its pages overlap). */
  constructor(mobile: number, twice: boolean) {
    this.mobile = mobile;
    this.twice = twice;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const marker = model.newMarker();
    const enquiryId = `Q-${marker}`;
    // A few seconds back: inside the window of the next pull, and of every pull's overlap after it.
    const receivedAt = new Date(Date.now() - 5_000);
    const mobile = MOBILES[this.mobile]!;
    const enquiry = { id: enquiryId, receivedOn: istText(receivedAt), name: 'Model Buyer', phone: `+91-${mobile}`, info: `2 BHK, ${marker}`, projectId: '1001', projectName: 'Model Towers', city: 'Pune' };
    world.portal.add(enquiry);
    if (this.twice) world.portal.add(enquiry);
    const connected = model.portal.connected && !model.portal.unknown;
    return {
      resends: [],
      settle: (m) => {
        m.submissions.push({
          marker,
          via: 'portal',
          resend: async () => {
            throw new Error('an enquiry is pulled, not sent');
          },
          enquiryId,
          receivedAtMs: receivedAt.getTime(),
          ...(!connected && { ignored: true }),
          project: 'PRJ-1',
          mobile,
          quarantined200: false,
          answers: [],
          releases: [],
          recordIds: [],
        } as Submission);
      },
    };
  }

  toString = () => `enquire(m${this.mobile}${this.twice ? ', listed twice' : ''})`;
}

const noContext: StepContext = { concurrent: false, faulted: false, resentBeside: new Set(), numbersBeside: new Set(), releasedBeside: new Set() };

/** A pull of the model's login, by the schedule or by `pull-portal`; `portalFails`: the portal answers it 500. */
export class Pull implements Action {
  readonly starter: PullStarter;
  readonly portalFails: boolean;

  constructor(starter: PullStarter, portalFails: boolean) {
    this.starter = starter;
    this.portalFails = portalFails;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    // The enquiries already made: those this pull may get through (one made beside it may come after its read).
    const before = model.submissions.filter((s) => s.via === 'portal' && !s.ignored);
    if (this.portalFails) world.portal.failNext('server_error');
    let outcome: PullSummary | 'busy' | 'not_connected' | 'failed';
    try {
      outcome = this.starter === 'schedule' ? await pullLogin(world.pulls, '99acres', PORTAL_LOGIN) : await pullPortalNow(world.pulls, ACCOUNT, '99acres', PORTAL_LOGIN);
    } catch (error) {
      // pull-portal's refusals: another pull holds the login (exit 1), or it is not connected.
      if (error instanceof PortalPullBusyError) outcome = 'busy';
      else if (error instanceof PortalLoginNotFoundError) outcome = 'not_connected';
      // The database failed under the step's faults: the CLI exits 1, the schedule's next pull tries again.
      else if (error instanceof RetryLaterError) outcome = 'failed';
      else throw error;
    }
    if (this.portalFails) world.portal.clearFaults();
    return {
      resends: before.map((s) => s.marker),
      settle: (m, context) => {
        if (outcome === 'not_connected' && m.portal.connected && !m.portal.unknown) broken(`${this}: the connected login was not pulled (not connected)`, outcome);
        if (outcome === 'busy' && !context.concurrent) broken(`${this}: refused as busy with no other pull running`, outcome);
        if (typeof outcome !== 'object') {
          if (outcome === 'not_connected' && m.portal.unknown) (m.portal.connected = false), (m.portal.unknown = false);
          return;
        }
        if (m.portal.unknown) (m.portal.connected = true), (m.portal.unknown = false);
        if (!m.portal.connected && !context.concurrent) broken(`${this}: a removed login was pulled`, outcome);
        const through = outcome.pulled_through === null ? 0 : Date.parse(outcome.pulled_through);
        for (const s of before) {
          if (s.receivedAtMs! > through || s.loose) continue;
          // Erased before any pull got it through: the enquiry was never stored, so it is new data of the person now (section 12 erases what is stored).
          if (s.erased && !s.erased.hadLead && !s.recordSeen) {
            s.erased = undefined;
            s.wasErased = true;
            s.since = s.answers.length;
          }
          s.answers.push({ status: 200, body: outcome, requestId: `pull-${s.marker}`, replayed: false });
        }
      },
    };
  }

  toString = () => `pull(${this.starter}${this.portalFails ? ', the portal answers 500' : ''})`;
}

/** The operator removes the login (`DELETE .../portals/99acres/{login}`): 204, then 404; later pulls store nothing. */
export class RemovePortalLogin implements Action {
  async perform(world: World, model: Model): Promise<Outcome> {
    const wasConnected = model.portal.connected;
    const answers = await operatorSends(() => world.admin('DELETE', `/admin/v1/accounts/${ACCOUNT}/portals/99acres/${PORTAL_LOGIN}`));
    return {
      resends: [],
      settle: (m, context) => {
        const allowed = context.concurrent || answers.length > 1 || m.portal.unknown ? [[204], [404, 'Portal login not found']] : [wasConnected ? [204] : [404, 'Portal login not found']];
        answers.forEach((answer) => expectAnswer(answer, allowed as never, context.concurrent ? context : noContext, `${this}`));
        const last = answers.at(-1)!;
        if (last.status === 204 || last.status === 404) m.portal.connected = false;
        if (last.status === 503) m.portal.unknown = true;
        // What a pull beside the removal stored may stay or not: those enquiries are checked no further.
        for (const s of m.submissions) if (s.via === 'portal' && s.answers.length === 0) s.loose = true;
      },
    };
  }

  toString = () => 'removePortalLogin()';
}

/**
 * An enquiry (section 17): at most one lead of the login's project, `source` 99acres with its enquiry id,
 * or one record of the 99acres endpoint naming the login and the enquiry; and one of them once a pull got it through.
 */
export const checkEnquiry = (s: Submission, lead: Record<string, any> | undefined, own: readonly Record<string, any>[], pulledThrough: boolean): void => {
  if (pulledThrough && !lead && own.length === 0) broken(`enquiry ${s.marker} was pulled through and left neither a lead nor a record`, s.answers.at(-1));
  if (lead && own.length > 0) broken(`enquiry ${s.marker} is a lead and a record`, { lead, records: own });
  if (own.length > 1) broken(`enquiry ${s.marker} left ${own.length} records`, own);
  if (lead) {
    const expected = { mobile_number: s.mobile, source: '99acres', portal_login: PORTAL_LOGIN, portal_enquiry_id: s.enquiryId, projectID: 'PRJ-1' };
    const actual = Object.fromEntries(Object.keys(expected).map((field) => [field, lead[field]]));
    if (JSON.stringify(actual) !== JSON.stringify(expected)) broken(`the lead of enquiry ${s.marker} is not the enquiry's`, { expected, lead });
  }
  for (const record of own) {
    if (record.endpoint !== '99acres' || record.portal_login !== PORTAL_LOGIN || record.portal_enquiry_id !== s.enquiryId) broken(`a record of enquiry ${s.marker} does not name its login and enquiry`, record);
  }
};
