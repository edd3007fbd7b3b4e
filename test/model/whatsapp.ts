/**
 * WhatsApp chats in the model (CONTRACT.md section 15): Meta delivers the first message of a chat with
 * one of the model's business numbers (each from an ad of its own, so each is a new conversation), at
 * times twice at once, again after its answer, and followed by a later message of the conversation; the
 * operator connects, moves and removes numbers through the admin API, and the seed brings back what it
 * connects unless it was removed. What a chat decides is a call's (model.ts checkChat): a lead, or a
 * record, or, for a number not connected, nothing.
 */
import { channelLeadDecisionOf, expectAnswer, NOTIFICATION_RECEIVED, operatorSends, seen, settleCallAgain, type Action, type Allowed, type Outcome, type StepContext } from './actions.ts';
import { broken, type CallDecision, type Model, type Submission } from './model.ts';
import { ACCOUNT, MOBILES, PROJECTS, type World } from './world.ts';

export interface ChatSpec {
  /** The business number written to (WHATSAPP_NUMBERS), connected or not as the model's numbers say. */
  readonly number: number;
  /** The sender among the model's mobiles, or a WhatsApp username whose number Meta withholds. */
  readonly sender: number | undefined;
  /** Its first message delivered in two notifications at once. */
  readonly twice: boolean;
  /** How often Meta delivers the first message again after its answer. */
  readonly redeliveries: number;
  /** The buyer writes again in the conversation: stores nothing more. */
  readonly followUp: boolean;
}

const notificationOf = (phoneNumberId: string, message: Record<string, unknown>, sender: string | undefined) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'WABA-MODEL',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '918047100009', phone_number_id: phoneNumberId },
            contacts: sender === undefined ? [] : [{ profile: { name: 'Model Buyer' }, wa_id: `91${sender}` }],
            messages: [message],
          },
        },
      ],
    },
  ],
});

/** What the first message of a new conversation decides in the model's state: the number, then the sender, then section 3's duplicates. */
const chatDecisionOf = (m: Model, spec: ChatSpec): CallDecision | 'ignored' => {
  const connected = m.waNumbers[spec.number]!.project;
  if (connected === undefined) return 'ignored';
  if (spec.sender === undefined) return { kind: 'record', reason: 'whatsapp_number_withheld' };
  return channelLeadDecisionOf(m, connected, spec.sender);
};

/** Meta notifies the first message of a chat with one of the model's numbers: a new message id, a new ad. */
export class Chat implements Action {
  readonly spec: ChatSpec;

  constructor(spec: ChatSpec) {
    this.spec = spec;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const { spec } = this;
    const marker = model.newMarker();
    const number = model.waNumbers[spec.number]!;
    // Where it was connected when it was sent (another action of the step may change it before this one settles).
    const connected = number.project;
    const sender = spec.sender === undefined ? undefined : MOBILES[spec.sender]!;
    const messageId = `wamid.${marker}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const who = sender === undefined ? { from_user_id: `US.${marker}` } : { from: `91${sender}` };
    const first = notificationOf(
      number.phoneNumberId,
      { ...who, id: messageId, timestamp: String(timestamp), type: 'text', text: { body: 'Is the 2 BHK available?' }, referral: { source_type: 'ad', source_id: `ad-${marker}`, source_url: 'https://fb.me/model', headline: 'Model Towers' } },
      sender,
    );
    const send = () => world.deliverChat(first);
    const answers = spec.twice ? await Promise.all([send(), send()]) : [await send()];
    const again: typeof answers = [];
    for (let i = 0; i < spec.redeliveries; i++) again.push(await send());
    const followUp = spec.followUp
      ? await world.deliverChat(notificationOf(number.phoneNumberId, { ...who, id: `${messageId}f`, timestamp: String(timestamp + 1), type: 'text', text: { body: 'Can I visit on Sunday?' } }, sender))
      : undefined;

    return {
      resends: [],
      settle: (m, context) => {
        const ok: Allowed[] = [[200, NOTIFICATION_RECEIVED]];
        answers.forEach((answer) => expectAnswer(answer, ok, context, `${this}`));
        if (followUp) expectAnswer(followUp, ok, context, `${this}, its next message`);
        const numberChanged = context.waNumbersBeside?.has(spec.number) === true;
        // Alone in its step, nothing else changes the model's state: every delivery of it decides alike.
        const decision = !context.concurrent && [...answers, ...again].some((answer) => answer.status === 200) ? chatDecisionOf(m, spec) : undefined;
        const ignored = !numberChanged && connected === undefined;
        const submission = {
          marker,
          via: 'whatsapp',
          resend: send,
          messageId,
          phoneNumberId: number.phoneNumberId,
          ...(ignored && { ignored: true }),
          // Its next message, after a first message every delivery of which failed, is a lead or a record only if no
          // conversation of the sender with the number is open (an earlier chat's): either may be right.
          ...((context.concurrent || (followUp !== undefined && ![...answers, ...again].some((answer) => answer.status === 200))) && { loose: true }),
          ...(decision !== undefined && decision !== 'ignored' && { callDecision: decision }),
          project: connected === undefined ? 'not connected' : PROJECTS[connected]!.projectID,
          // A withheld number names no one: its record is found by no mobile.
          mobile: sender ?? 'not a mobile',
          quarantined200: false,
          // Its next message is of its conversation: when the first message's deliveries all failed (nothing stored), the next one opens the conversation, and its 200 is this chat's lead or record.
          answers: [...answers, ...(followUp ? [followUp] : [])].map(seen),
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
    const extras = [s.twice && 'twice at once', s.redeliveries > 0 && `delivered again x${s.redeliveries}`, s.followUp && 'and a next message'].filter(Boolean);
    return `chat(number ${s.number}, ${s.sender === undefined ? 'withheld' : `m${s.sender}`}${extras.length ? `, ${extras.join(', ')}` : ''})`;
  }
}

const numberPath = (phoneNumberId: string) => `/admin/v1/accounts/${ACCOUNT}/whatsapp-numbers/${phoneNumberId}`;
const noContext: StepContext = { concurrent: false, faulted: false, resentBeside: new Set(), numbersBeside: new Set(), releasedBeside: new Set() };

/** The account's WhatsApp numbers as the admin API lists them are the model's (after an unknown outcome, what the model takes). */
export const checkWhatsAppNumbers = async (model: Model, world: World, when: string): Promise<void> => {
  const answer = await world.admin('GET', `/admin/v1/accounts/${ACCOUNT}/whatsapp-numbers`);
  expectAnswer(answer, [[200]], noContext, `list the WhatsApp numbers ${when}`);
  const listed = new Map((answer.body as { phone_number_id: string; project_id: string; campaign_id: string }[]).map((n) => [n.phone_number_id, n]));
  for (const state of model.waNumbers) {
    const found = listed.get(state.phoneNumberId);
    const project = found && PROJECTS.findIndex((p) => p.projectID === found.project_id && p.campaignID === found.campaign_id);
    if (state.unknown) {
      state.project = project;
      state.unknown = false;
    } else if (project !== state.project) {
      broken(`WhatsApp number ${state.phoneNumberId} is listed ${found ? `connected to ${found.project_id}` : 'not connected'} ${when}; the model says ${state.project === undefined ? 'not connected' : PROJECTS[state.project]!.projectID}`, { listed: answer.body });
    }
    listed.delete(state.phoneNumberId);
  }
  if (listed.size > 0) broken(`WhatsApp numbers the model never connected are listed ${when}`, [...listed.values()]);
};

/** The operator connects a WhatsApp number (`PUT .../whatsapp-numbers/{id}`): 201 when it was not connected, 200 when it moves. */
export class ConnectWhatsAppNumber implements Action {
  readonly number: number;
  readonly project: number;

  constructor(number: number, project: number) {
    this.number = number;
    this.project = project;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const state = model.waNumbers[this.number]!;
    const wasConnected = state.project !== undefined;
    const { projectID, campaignID } = PROJECTS[this.project]!;
    const answers = await operatorSends(() => world.admin('PUT', numberPath(state.phoneNumberId), { projectId: projectID, campaignId: campaignID }));
    return {
      resends: [],
      waNumbers: [this.number],
      settle: (_m, context) => {
        const either = context.waNumbersBeside?.has(this.number) === true || answers.length > 1;
        const allowed: Allowed[] = either ? [[201], [200]] : [[wasConnected ? 200 : 201]];
        answers.forEach((answer, i) => expectAnswer(answer, allowed, context, `${this}${i > 0 ? `, sent again (${i})` : ''}`));
        const last = answers.at(-1)!;
        if (last.status === 200 || last.status === 201) {
          if (last.body?.phone_number_id !== state.phoneNumberId || last.body?.project_id !== projectID) broken(`${this}: answered another number`, last.body);
          state.project = this.project;
        }
        if (last.status === 503 || context.waNumbersBeside?.has(this.number) === true) state.unknown = true;
      },
    };
  }

  toString = () => `connectWhatsAppNumber(${this.number}, P${this.project + 1})`;
}

/** The operator removes a WhatsApp number: 204, or 404 `WhatsApp number not found`; its messages are then ignored. */
export class RemoveWhatsAppNumber implements Action {
  readonly number: number;

  constructor(number: number) {
    this.number = number;
  }

  async perform(world: World, model: Model): Promise<Outcome> {
    const state = model.waNumbers[this.number]!;
    const wasConnected = state.project !== undefined;
    const answers = await operatorSends(() => world.admin('DELETE', numberPath(state.phoneNumberId)));
    return {
      resends: [],
      waNumbers: [this.number],
      settle: (_m, context) => {
        const either = context.waNumbersBeside?.has(this.number) === true || answers.length > 1;
        const notConnected: Allowed = [404, 'WhatsApp number not found'];
        const allowed: Allowed[] = either ? [[204], notConnected] : [wasConnected ? [204] : notConnected];
        answers.forEach((answer, i) => expectAnswer(answer, allowed, context, `${this}${i > 0 ? `, sent again (${i})` : ''}`));
        const last = answers.at(-1)!;
        if (last.status === 204 || last.status === 404) state.project = undefined;
        if (last.status === 503 || context.waNumbersBeside?.has(this.number) === true) state.unknown = true;
      },
    };
  }

  toString = () => `removeWhatsAppNumber(${this.number})`;
}
