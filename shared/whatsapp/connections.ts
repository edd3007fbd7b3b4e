/**
 * WhatsApp Business numbers as a kind of connection (CONTRACT.md section 15; shared/sources/connection-kind.ts):
 * a number is Meta's phone number id (1 to 200 digits), one account's, with no key. The one connection
 * lifecycle does the rest: `add-whatsapp-number`, `whatsapp-numbers`, `remove-whatsapp-number`, the admin
 * API's `/whatsapp-numbers` routes, the seed's `whatsappNumbers` and their OpenAPI.
 */
import { connectionMessages, connectionSchema, platformWideRefusals, type ConnectionLifecycleDeclaration, type ConnectionToolWords } from '../sources/connection-kind.ts';
import { connectionAdminRoutes } from '../sources/connection-routes.ts';
import { whatsappNumberConnectionKey } from './wire-names.ts';

export const whatsappNumberConnections = {
  ...whatsappNumberConnectionKey,
  // A number is one account's: a connect that lost its race found it taken.
  connect: { attempts: 2, exhausted: 'another-account' },
  connectAnswer: 'listed',
  words: {
    pathSegment: 'whatsapp-numbers',
    pathParameter: 'phoneNumberId',
    invalidIdProblem: "must be Meta's phone number id, 1 to 200 digits",
    idMember: 'phone_number_id',
    operations: { connect: 'connectWhatsAppNumber', list: 'listWhatsAppNumbers', remove: 'removeWhatsAppNumber' },
    .../* @__PURE__ */ platformWideRefusals(whatsappNumberConnectionKey.kind, 'WhatsApp number'),
    messages: {
      invalidIdFlag: 'phone-number-id',
      invalidId: "a phone number id is Meta's id of the business number, 1 to 200 digits, not {value}",
      .../* @__PURE__ */ connectionMessages('WhatsApp number'),
    },
  },
} as const satisfies ConnectionLifecycleDeclaration;

/** The words of the tools (the admin CLI, the seed, OpenAPI), apart: the admin function's bundle carries none of them. */
export const whatsappNumberConnectionWords = {
  cli: {
    module: 'whatsappNumbers',
    idFlag: 'phone-number-id',
    idPlaceholder: 'PNID',
    connect: {
      verb: 'add-whatsapp-number',
      summary:
        "Connect a WhatsApp Business number (Meta's phone number id, in the Meta app's WhatsApp API Setup or WhatsApp Manager) to an account's project and campaign: " +
        'the first message of each chat with it becomes a lead there. A number the account has already moves to the project and campaign given; another account’s is refused.',
      created: 'WhatsApp number {id} is connected to account {account} ({where}).',
      moved: 'Chats with WhatsApp number {id} now become leads of {where}.',
      hint: 'In the Meta app, subscribe the WhatsApp Business Account\'s "messages" field to {base_url}{route} (the same verify token and app secret as Meta Lead Ads; docs/sources/whatsapp.md).',
    },
    list: {
      verb: 'whatsapp-numbers',
      summary: "List an account's connected WhatsApp numbers (phone number id, project, campaign, connected at).",
      empty: 'No WhatsApp numbers connected.',
      counted: '{count} number(s)',
    },
    remove: {
      verb: 'remove-whatsapp-number',
      summary: 'Disconnect a WhatsApp number: its messages are then ignored (logged by the number’s id, counted), and a seed never connects it again; its leads are kept.',
      byAccount: true,
      removed: 'WhatsApp number {id} of account {account} is disconnected.',
    },
  },
  seed: {
    member: 'whatsappNumbers',
    idField: 'phoneNumberId',
    invalidId: "must be Meta's phone number id (1 to 200 digits, as a string)",
    repeated: 'WhatsApp number {value} appears more than once (a number belongs to one account)',
  },
  openapi: {
    bodySchema: 'WhatsAppNumberBody',
    connectedSchema: 'WhatsAppNumber',
    listedSchema: 'WhatsAppNumber',
    schemas: {
      WhatsAppNumber: /* @__PURE__ */ connectionSchema('A WhatsApp Business number, by Meta’s phone number id, and where its chats become leads.', 'phone_number_id', '^[0-9]{1,200}$'),
    },
    connect: {
      summary: 'Connect a WhatsApp Business number to a project and campaign: its chats become leads there',
      description:
        'The number is Meta’s phone number id (the Meta app’s WhatsApp API Setup, or WhatsApp Manager), 1 to 200 digits; any other: 400. A number no account has connected (or one removed): 201. One the account has: 200, moved to this project and campaign. One of another account: 409 (a number belongs to one account).',
      created: 'Connected',
      changed: 'Moved to this project and campaign',
    },
    list: {
      summary: 'The account’s connected WhatsApp numbers',
      description: 'Each number with its project, campaign and when it was connected, by phone number id.',
      answer: 'The numbers',
    },
    remove: {
      summary: 'Disconnect a WhatsApp number: its messages are then ignored',
      description: 'The number’s leads are kept. Applying a seed again never connects it back; connecting it with PUT does. Another account’s number is not found.',
      answer: 'Disconnected',
    },
  },
} as const satisfies ConnectionToolWords;

/** Its admin routes (its descriptor's `admin.routes`, served by admin.ts). */
export const whatsappNumberAdminRoutes = connectionAdminRoutes(whatsappNumberConnections);
