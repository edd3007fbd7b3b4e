/**
 * Call numbers as a kind of connection (CONTRACT.md section 13; shared/sources/connection-kind.ts): a
 * number is its last 10 digits, connected by each account on its own (two accounts may list one
 * number, and neither blocks the other), with no key. The one connection lifecycle does the rest.
 */
import { connectionSchema, type ConnectionLifecycleDeclaration, type ConnectionToolWords } from '../sources/connection-kind.ts';
import { connectionAdminRoutes } from '../sources/connection-routes.ts';
import { callNumberConnectionKey } from './wire-names.ts';

export const callNumberConnections = {
  ...callNumberConnectionKey,
  // An account's own number is taken by no other: a connect that lost every race met contended writes.
  connect: { attempts: 3, exhausted: 'unavailable' },
  connectAnswer: 'listed',
  words: {
    pathSegment: 'call-numbers',
    pathParameter: 'number',
    invalidIdProblem: 'must have at least 10 digits',
    idMember: 'number',
    operations: { connect: 'connectCallNumber', list: 'listCallNumbers', remove: 'removeCallNumber' },
    notFound: { status: 404, code: 'call_number_not_found', message: 'Call number not found' },
    messages: {
      invalidIdFlag: 'number',
      invalidId: 'a call number has at least 10 digits, not {value}',
      notConnected: 'Call number {id} is not connected',
      projectNotFound: 'project {value} is not an active project of account {account}',
      campaignNotFound: 'campaign {value} is not an active campaign of account {account} under that project',
    },
  },
} as const satisfies ConnectionLifecycleDeclaration;

/** The words of the tools (the admin CLI, the seed, OpenAPI), apart: the admin function's bundle carries none of them. */
export const callNumberConnectionWords = {
  cli: {
    module: 'callNumbers',
    idFlag: 'number',
    idPlaceholder: 'N',
    connect: {
      verb: 'add-call-number',
      summary:
        "Connect a project's phone number (its last 10 digits) to an account's project and campaign: calls to it become leads there. " +
        'A number the account has already moves to the project and campaign given.',
      created: 'Call number {id} is connected to account {account} ({where}).',
      moved: 'Calls to {id} now become leads of {where}.',
      // Where the number's calls are sent from: the provider's settings, with a key limited to calls.
      hint: 'Point the provider at {base_url}{route}?key=KEY (a key made with create-key --endpoints calls; docs/sources/call.md says where each provider takes it).',
      routeParameters: { provider: 'exotel|knowlarity|generic' },
    },
    list: {
      verb: 'call-numbers',
      summary: "List an account's connected call numbers (number, project, campaign, connected at).",
      empty: 'No call numbers connected.',
      counted: '{count} number(s)',
    },
    remove: {
      verb: 'remove-call-number',
      summary: 'Disconnect a call number: its calls are then kept as call_number_not_connected rejections, and a seed never connects it again; its leads are kept.',
      byAccount: true,
      removed: 'Call number {id} of account {account} is disconnected.',
    },
  },
  seed: {
    member: 'callNumbers',
    idField: 'number',
    invalidId: 'must be a phone number of at least 10 digits, as a string',
    repeated: '{at}: call number {id} appears more than once',
  },
  openapi: {
    bodySchema: 'CallNumberBody',
    connectedSchema: 'CallNumber',
    listedSchema: 'CallNumber',
    schemas: {
      CallNumber: /* @__PURE__ */ connectionSchema('A project’s phone number (its last 10 digits) and where its calls become leads.', 'number', '^\\d{10}$'),
    },
    connect: {
      summary: 'Connect a project’s phone number to a project and campaign: its calls become leads there',
      description:
        'The number in the path is read by its last 10 digits (`+918047181234` is `8047181234`); fewer than 10 digits: 400. A number the account has not connected (or removed): 201. One it has: 200, moved to this project and campaign.',
      created: 'Connected',
      changed: 'Moved to this project and campaign',
    },
    list: {
      summary: 'The account’s connected call numbers',
      description: 'Each number with its project, campaign and when it was connected, by number.',
      answer: 'The numbers',
    },
    remove: {
      summary: 'Disconnect a call number: its calls are then kept as `call_number_not_connected` rejections',
      description: 'The number’s leads are kept. Applying a seed again never connects it back; connecting it with PUT does.',
      answer: 'Disconnected',
    },
  },
} as const satisfies ConnectionToolWords;

/** Its admin routes (its descriptor's `admin.routes`, served by admin.ts). */
export const callNumberAdminRoutes = connectionAdminRoutes(callNumberConnections);
