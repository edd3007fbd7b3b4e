/**
 * The reader of Meta's WhatsApp Business Account notifications (CONTRACT.md section 15): one delivery
 * per message, in the order sent, whatever its entries and changes; what is not a customer's message
 * (another object, a change other than `messages`, `statuses`) yields nothing, and a `system` message is
 * a delivery that is ignored. Each message's lead fields are mapped here; whether it stores anything is
 * its conversation's claim (a DeliveryClaim of its number and sender). Pure: no I/O, no clock but the
 * message's own `timestamp`.
 */
import { boundIdentifier, FieldValidationError } from '../domain/errors.ts';
import { cutToUnits, NOTES_MAX } from '../domain/form-answers.ts';
import type { PersonHandle } from '../domain/person-data.ts';
import { JsonNumber } from '../schemas/json-number.ts';
import type { ConnectionTarget, Delivery, DeliveryClaim } from '../intake/types.ts';
import { WhatsAppNumberWithheldError } from './errors.ts';

/** The name of a sender whose profile gives none. */
export const WHATSAPP_USER = 'WhatsApp user';
/** The contract's bounds of a referral's fields. */
const HEADLINE_MAX = 300;
const SOURCE_URL_MAX = 2000;
const PHONE_NUMBER_ID = 'whatsapp_phone_number_id';
const DAY_MS = 24 * 60 * 60 * 1000;

const NOT_AN_INDIAN_SENDER = 'mobile_number must be 91 and a 10-digit Indian mobile number starting with 6, 7, 8 or 9';

/** An Indian mobile as Meta writes a sender: `91`, then 10 digits starting with 6 to 9 (no `+`, nothing else). */
const INDIAN_SENDER = /^91([6-9]\d{9})$/;

export interface WhatsAppReferral {
  readonly type?: 'ad' | 'post';
  readonly sourceId?: string;
  readonly sourceUrl?: string;
  readonly headline?: string;
  readonly ctwaClid?: string;
}

/** One customer message to a business number, as the intake stores it once (shared/intake/types.ts Delivery). */
export interface WhatsAppDelivery extends Delivery {
  readonly messageId: string | undefined;
  readonly phoneNumberId: string | undefined;
  /** The message's time (Meta's `timestamp`, kept on retries), ISO 8601. */
  readonly at: string;
  readonly referral?: WhatsAppReferral;
}

export interface WhatsAppReaderSettings {
  /** A conversation's length in days (`whatsappConversationDays`), a fraction allowed. */
  readonly conversationDays: number;
}

type Json = Readonly<Record<string, unknown>>;

const objectOf = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const objectsOf = (value: unknown): Json[] => (Array.isArray(value) ? value.map(objectOf).filter((item): item is Json => item !== undefined) : []);
const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

const cut = cutToUnits;

/** An `https` URL of at most 2,000 characters; anything else is left out. */
const httpsUrlOf = (value: unknown): string | undefined => {
  const url = textOf(value);
  if (url === undefined || url.length > SOURCE_URL_MAX) return undefined;
  try {
    return new URL(url).protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

/** The message's text as notes: a text's body, a button's text, an interactive reply's title; otherwise its type in brackets. */
const notesOf = (message: Json): string => {
  const type = textOf(message.type) ?? 'unknown';
  const interactive = objectOf(message.interactive);
  const said =
    type === 'text'
      ? textOf(objectOf(message.text)?.body)
      : type === 'button'
        ? textOf(objectOf(message.button)?.text)
        : type === 'interactive'
          ? (textOf(objectOf(interactive?.button_reply)?.title) ?? textOf(objectOf(interactive?.list_reply)?.title))
          : undefined;
  return cut(said ?? `[${type}]`, NOTES_MAX);
};

const referralOf = (value: unknown): WhatsAppReferral | undefined => {
  const referral = objectOf(value);
  if (!referral) return undefined;
  const type = referral.source_type === 'ad' || referral.source_type === 'post' ? referral.source_type : undefined;
  const headline = textOf(referral.headline);
  const read: WhatsAppReferral = {
    ...(type && { type }),
    ...(textOf(referral.source_id) !== undefined && { sourceId: textOf(referral.source_id)! }),
    ...(httpsUrlOf(referral.source_url) !== undefined && { sourceUrl: httpsUrlOf(referral.source_url)! }),
    ...(headline !== undefined && { headline: cut(headline, HEADLINE_MAX) }),
    ...(textOf(referral.ctwa_clid) !== undefined && { ctwaClid: textOf(referral.ctwa_clid)! }),
  };
  return read;
};

/** The message's time: Meta's `timestamp` (seconds since the epoch, as text); a message without one is taken as received now. */
const timeOf = (value: unknown, receivedAt: Date): string => {
  // A number in the body is read as its digits (JsonNumber, docs/decisions/0004-json-body-parsing.md); Meta sends text.
  const text = value instanceof JsonNumber ? value.source : value;
  const seconds = typeof text === 'string' && /^\d{1,12}$/.test(text) ? Number(text) : undefined;
  return new Date(seconds === undefined ? receivedAt.getTime() : seconds * 1000).toISOString();
};

/**
 * Section 14: every identifier the service would store is at most 200 characters, or nothing of the
 * notification is stored (IdentifierTooLongError, 400): checked over all of it before any delivery is read.
 */
const boundIdentifiers = (changes: readonly Json[]): void => {
  for (const value of changes) {
    boundIdentifier('phone_number_id', textOf(objectOf(value.metadata)?.phone_number_id));
    for (const message of objectsOf(value.messages)) {
      boundIdentifier('id', textOf(message.id));
      boundIdentifier('from_user_id', textOf(message.from_user_id));
      boundIdentifier('user_id', textOf(message.user_id));
      const referral = objectOf(message.referral);
      boundIdentifier('source_id', textOf(referral?.source_id));
      boundIdentifier('ctwa_clid', textOf(referral?.ctwa_clid));
    }
  }
};

/** The `value`s of the notification's `messages` changes, in the order sent; nothing for another object. */
const messageChangesOf = (body: Json): Json[] => {
  if (body.object !== 'whatsapp_business_account') return [];
  return objectsOf(body.entry).flatMap((entry) =>
    objectsOf(entry.changes)
      .filter((change) => change.field === 'messages')
      .flatMap((change) => (objectOf(change.value) ? [objectOf(change.value)!] : [])),
  );
};

/**
 * The deliveries of a notification: each customer message of each `messages` change, in order (a
 * change's `statuses` are receipts of what the business sent, and yield nothing).
 */
export const whatsappDeliveriesOf = (body: Json, { conversationDays }: WhatsAppReaderSettings, receivedAt: Date = new Date()): WhatsAppDelivery[] => {
  const changes = messageChangesOf(body);
  boundIdentifiers(changes);
  return changes.flatMap((value) => {
    const phoneNumberId = textOf(objectOf(value.metadata)?.phone_number_id);
    const contacts = objectsOf(value.contacts);
    return objectsOf(value.messages).map((message) => deliveryOf(message, phoneNumberId, contacts, conversationDays, receivedAt));
  });
};

const deliveryOf = (message: Json, phoneNumberId: string | undefined, contacts: readonly Json[], conversationDays: number, receivedAt: Date): WhatsAppDelivery => {
  const messageId = textOf(message.id);
  const from = textOf(message.from);
  // A username sender (Meta withholds the number): `from_user_id` (older payloads: `user_id`) and no
  // `from`. When Meta sends both, `from` decides (CONTRACT.md section 15).
  const userId = from === undefined ? (textOf(message.from_user_id) ?? textOf(message.user_id)) : undefined;
  const at = timeOf(message.timestamp, receivedAt);
  const referral = referralOf(message.referral);
  const indianMobile = from === undefined ? undefined : INDIAN_SENDER.exec(from)?.[1];
  const contact = contacts.find((candidate) => (from !== undefined ? candidate.wa_id === from : userId !== undefined && candidate.user_id === userId));
  const name = textOf(objectOf(contact?.profile)?.name) ?? WHATSAPP_USER;
  const notes = notesOf(message);
  const ids = { whatsapp_message_id: messageId, [PHONE_NUMBER_ID]: phoneNumberId };

  const fields = (connection: ConnectionTarget | undefined): Json =>
    definedOf({
      name,
      mobile_number: indianMobile,
      platform: 'wp',
      projectID: connection?.projectId,
      campaignID: connection?.campaignId,
      notes,
      ...ids,
      whatsapp_referral_type: referral?.type,
      whatsapp_ad_id: referral?.sourceId,
      whatsapp_source_url: referral?.sourceUrl,
      whatsapp_headline: referral?.headline,
      ctwa_clid: referral?.ctwaClid,
    });

  // Who the conversation is with: the sender's mobile (an erasure by it forgets the conversation), any
  // other number as sent, or a username's user id. Only ever stored as a keyed hash.
  const party: PersonHandle | undefined =
    indianMobile !== undefined ? { kind: 'mobile', value: indianMobile } : from !== undefined ? { kind: 'mobile', value: from } : userId !== undefined ? { kind: 'platform_user', value: userId } : undefined;
  const claim: (DeliveryClaim & { readonly party: PersonHandle }) | undefined =
    party === undefined || phoneNumberId === undefined
      ? undefined
      : {
          key: `whatsapp_number#${phoneNumberId}`,
          party,
          at,
          until: new Date(Date.parse(at) + conversationDays * DAY_MS).toISOString(),
          // A new ad's referral starts a new conversation; a conversation begun without one has none.
          ...(referral?.sourceId !== undefined && { value: referral.sourceId }),
        };

  const base = {
    messageId,
    phoneNumberId,
    at,
    ...(referral && { referral }),
    fields,
    platformId: { id: messageId, qualifiers: definedOf({ [PHONE_NUMBER_ID]: phoneNumberId }) as Record<string, string> },
    connection: { id: phoneNumberId },
  };
  // Not a customer's message, or not one that can be stored exactly once: nothing to store.
  if (message.type === 'system') return { ...base, ignored: 'whatsapp_system_message' };
  if (messageId === undefined || phoneNumberId === undefined || claim === undefined) return { ...base, ignored: 'whatsapp_message_unreadable' };

  const conversation = {
    claims: [claim],
    // A message without a referral of its own is a later message of an open conversation, most likely:
    // its conversation is read first (one GetItem) and, open, nothing is written. With a referral, it
    // most likely opens one (a tap on an ad): straight to its one write, which takes the claim.
    decidedWhileClaimHeld: claim.value === undefined,
  };
  if (from === undefined) {
    return { ...base, ...conversation, refusal: new WhatsAppNumberWithheldError(), refusalFields: { name, whatsapp_user_id: userId, notes } };
  }
  if (indianMobile === undefined) {
    // Section 2's "last 10 digits" is for numbers people type: `447911123456` is not an Indian mobile, and names no one.
    const problems = { mobile_number: [NOT_AN_INDIAN_SENDER] };
    return { ...base, ...conversation, refusal: new FieldValidationError(problems), refusalFields: problems };
  }
  return { ...base, ...conversation };
};

const definedOf = (record: Readonly<Record<string, string | undefined>>): Json =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined));
