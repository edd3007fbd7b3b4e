/**
 * Faults where they really happen: an HTTP relay between the service's DynamoDB client and DynamoDB
 * Local that can, request by request, pass a request on, reset its connection, never answer it,
 * answer it as DynamoDB answers an error (status and JSON body), or pass it on, let DynamoDB apply it,
 * and then lose or spoil the answer (`pass-then-*`): the case where the database did the work and
 * the service cannot know it. Everything above the wire runs for real: the SDK's retries and back-off, the
 * ClientRequestToken it keeps across the attempts of a TransactWriteItems, its parsing of DynamoDB's
 * error bodies, the per-attempt deadline, and the service's read-back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeEach } from '@jest/globals';
import type { DuplicateSetting } from '../../shared/domain/lead.ts';
import { testService, type ServiceOptions, type TestService } from './service.ts';

export type RelayAction =
  /** DynamoDB gets the request and its answer comes back. */
  | { readonly kind: 'pass' }
  /** The connection is reset before DynamoDB gets the request. */
  | { readonly kind: 'reset' }
  /** Accepted, never answered: a black hole. */
  | { readonly kind: 'stall' }
  /** DynamoDB's answer to a request it refused: an HTTP status and its JSON error body. */
  | { readonly kind: 'answer'; readonly status: number; readonly body: Record<string, unknown> }
  /** DynamoDB applies the request, and its answer is lost (the connection is reset instead). */
  | { readonly kind: 'pass-then-reset' }
  /** DynamoDB applies the request, and the service hears DynamoDB's 500 instead of its answer. */
  | { readonly kind: 'pass-then-500' }
  /** DynamoDB applies the request, and the service hears a ThrottlingException instead of its answer. */
  | { readonly kind: 'pass-then-throttle' }
  /** DynamoDB applies the request, and its answer never comes: the connection stays open, silent. */
  | { readonly kind: 'pass-then-stall' };

/** The actions under which DynamoDB did the work and the service does not hear that it did. */
export const appliedThenLost = ['pass-then-reset', 'pass-then-500', 'pass-then-throttle', 'pass-then-stall'] as const;
export type AppliedThenLost = (typeof appliedThenLost)[number];

export interface RelayedRequest {
  /** The operation, from X-Amz-Target: `GetItem`, `TransactWriteItems`, ... */
  readonly operation: string;
  readonly body: Record<string, any>;
}

export type RelayPlan = (request: RelayedRequest) => RelayAction | undefined | Promise<RelayAction | undefined>;

export interface SeenRequest extends RelayedRequest {
  readonly action: RelayAction['kind'];
  /** When the relay received the request, and when it answered (or gave up on) it: performance.now(). */
  readonly receivedAt: number;
  answeredAt?: number;
  /** DynamoDB's own error answer to a request passed on (a cancelled transaction's reasons, ...). */
  answer?: Record<string, any>;
}

const PASS: RelayAction = { kind: 'pass' };

/** DynamoDB's own error answers, as its JSON protocol sends them. */
export const dynamoDbError = {
  throttling: (): RelayAction => ({
    kind: 'answer',
    status: 400,
    body: { __type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
  }),
  provisionedThroughputExceeded: (): RelayAction => ({
    kind: 'answer',
    status: 400,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
    },
  }),
  internalServerError: (): RelayAction => ({
    kind: 'answer',
    status: 500,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
  }),
  transactionInProgress: (): RelayAction => ({
    kind: 'answer',
    status: 400,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#TransactionInProgressException', message: 'Transaction is in progress' },
  }),
  /** A TransactWriteItems cancelled with one reason per item, in the order of its items. */
  transactionCanceled: (...codes: string[]): RelayAction => ({
    kind: 'answer',
    status: 400,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
      CancellationReasons: codes.map((Code) =>
        Code === 'None'
          ? { Code }
          : {
              Code,
              Message:
                Code === 'TransactionConflict'
                  ? 'Transaction is ongoing for the item'
                  : 'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
            },
      ),
    },
  }),
};

const readAll = (stream: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });

export const startFaultRelay = async (target: string) => {
  const upstream = new URL(target);
  let plan: RelayPlan = () => undefined;
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();

  const forward = (request: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
      const outgoing = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...headers, host: upstream.host } },
        (answer) => {
          readAll(answer).then((answerBody) => {
            const answerHeaders: Record<string, string> = {};
            for (const [name, value] of Object.entries(answer.headers)) if (typeof value === 'string') answerHeaders[name] = value;
            resolve({ status: answer.statusCode ?? 502, headers: answerHeaders, body: answerBody });
          }, reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const answerWith = (response: ServerResponse, status: number, body: Record<string, unknown>) => {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
    });
    response.end(text);
  };

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const receivedAt = performance.now();
    const raw = await readAll(request);
    const operation = String(request.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    const body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, any>) : {};
    const action = (await plan({ operation, body })) ?? PASS;
    const record: SeenRequest = { operation, body, action: action.kind, receivedAt };
    seen.push(record);
    const answered = () => void (record.answeredAt = performance.now());
    switch (action.kind) {
      case 'reset':
        answered();
        request.socket.resetAndDestroy();
        return;
      case 'stall':
        return;
      case 'answer':
        answered();
        answerWith(response, action.status, action.body);
        return;
      case 'pass': {
        const answer = await forward(request, raw);
        answered();
        record.answer = answer.status === 200 ? undefined : JSON.parse(answer.body.toString('utf8') || '{}');
        delete answer.headers['transfer-encoding'];
        response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
        response.end(answer.body);
        return;
      }
      default: {
        // DynamoDB does the work; what it says about it never reaches the service.
        await forward(request, raw);
        answered();
        if (action.kind === 'pass-then-reset') request.socket.resetAndDestroy();
        else if (action.kind === 'pass-then-500') answerWith(response, 500, (dynamoDbError.internalServerError() as { body: Record<string, unknown> }).body);
        else if (action.kind === 'pass-then-throttle') answerWith(response, 400, (dynamoDbError.throttling() as { body: Record<string, unknown> }).body);
      }
    }
  };

  const server = createServer((request, response) => {
    serve(request, response).catch(() => request.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** Decides what happens to each request from now on (undefined: pass it on). */
    plan: (next: RelayPlan) => void (plan = next),
    /** Every request from now on is passed on. */
    heal: () => void (plan = () => undefined),
    /** Requests the relay has handled, with what it did to each. */
    seen: (operation?: string) => seen.filter((request) => operation === undefined || request.operation === operation),
    clearSeen: () => void (seen.length = 0),
    /**
     * The most requests of an operation DynamoDB was handling at one moment (from the relay's
     * receive and answer times): proof that requests meant to race were in flight together.
     */
    mostInFlight: (operation: string) => mostAtOnce(seen.filter((request) => request.operation === operation)),
    /** Connections open now (stalled requests keep theirs until the client gives up). */
    openConnections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export type FaultRelay = Awaited<ReturnType<typeof startFaultRelay>>;

/** A plan that applies `action` to the first `times` requests of an operation, then passes. */
export const firstOf = (operation: string, times: number, action: () => RelayAction): RelayPlan => {
  let count = 0;
  return (request) => {
    if (request.operation !== operation || count >= times) return undefined;
    count += 1;
    return action();
  };
};

/** A plan that applies `action` to the `nth` request (from 1) of an operation only. */
export const nthOf = (operation: string, nth: number, action: () => RelayAction): RelayPlan => {
  let count = 0;
  return (request) => (request.operation === operation && (count += 1) === nth ? action() : undefined);
};

const mostAtOnce = (requests: readonly SeenRequest[]): number => {
  const edges = requests.flatMap((request) => [
    { at: request.receivedAt, step: 1 },
    { at: request.answeredAt ?? Number.POSITIVE_INFINITY, step: -1 },
  ]);
  // An answer and a receipt at the same instant do not overlap.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.step));
  return most;
};

/**
 * A plan that holds the first `count` requests of an operation until all of them have arrived, then
 * passes them on together: a race at DynamoDB made certain rather than hoped for. Should fewer arrive,
 * those held go on after `patienceMs`, and `mostInFlight` tells the test the race did not happen.
 */
export const heldTogether = (operation: string, count: number, patienceMs = 5_000): RelayPlan => {
  let arrived = 0;
  let release: () => void = () => undefined;
  const allHere = new Promise<void>((resolve) => (release = resolve));
  return async (request) => {
    if (request.operation !== operation || arrived >= count) return undefined;
    arrived += 1;
    if (arrived === count) release();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allHere, new Promise<void>((resolve) => (timer = setTimeout(resolve, patienceMs)))]);
    clearTimeout(timer);
    return undefined;
  };
};

/** TransactWriteItems that DynamoDB cancelled, by the reason it gave for each item. */
export const cancelledTransactions = (requests: readonly SeenRequest[]) =>
  requests.filter((request) => String(request.answer?.__type ?? '').endsWith('TransactionCanceledException'));

/**
 * A service behind `relay` for each duplicate setting: an account `acc-<setting>` with PRJ-1/CMP-1
 * and a key. Returns what a test needs of one setting's account.
 */
export const accountsBehind = async (relay: FaultRelay, options: ServiceOptions = {}) => {
  const accounts = new Map<DuplicateSetting, { service: TestService; apiKey: string; account: string }>();
  for (const setting of ['ignore', 'create', 'merge'] as const) {
    const service = await testService({ ...options, endpoint: relay.endpoint });
    const account = `acc-${setting}`;
    await service.seedAccount({ id: account, duplicateSetting: setting, projects: { 'PRJ-1': ['CMP-1'] } });
    accounts.set(setting, { service, apiKey: await service.issueKey(account), account });
  }
  return (setting: DuplicateSetting) => {
    const { service, apiKey, account } = accounts.get(setting)!;
    return { service, apiKey, account, leads: () => service.repository.leadArchive.listLeads(account, ['PRJ-1']) };
  };
};

/** A test file's relay (`current()` once started) passes everything before each test, and closes after the file. */
export const healedBeforeEach = (current: () => FaultRelay | undefined) => {
  beforeEach(() => {
    current()!.heal();
    current()!.clearSeen();
  });
  afterAll(async () => {
    await current()?.close();
  });
};
