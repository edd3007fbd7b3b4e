/**
 * Faults where they really happen: an HTTP relay between the service's DynamoDB client and DynamoDB
 * Local that can, request by request, pass a request on, reset its connection, never answer it,
 * answer it as DynamoDB answers an error (status and JSON body), or pass it on and then lose the
 * answer. Everything above the wire runs for real: the SDK's retries and back-off, the
 * ClientRequestToken it keeps across the attempts of a TransactWriteItems, its parsing of DynamoDB's
 * error bodies, the per-attempt deadline, and the service's read-back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
  | { readonly kind: 'lose-answer' };

export interface RelayedRequest {
  /** The operation, from X-Amz-Target: `GetItem`, `TransactWriteItems`, ... */
  readonly operation: string;
  readonly body: Record<string, any>;
}

export type RelayPlan = (request: RelayedRequest) => RelayAction | undefined | Promise<RelayAction | undefined>;

export interface SeenRequest extends RelayedRequest {
  readonly action: RelayAction['kind'];
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

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readAll(request);
    const operation = String(request.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    const body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, any>) : {};
    const action = (await plan({ operation, body })) ?? PASS;
    seen.push({ operation, body, action: action.kind });
    switch (action.kind) {
      case 'reset':
        request.socket.resetAndDestroy();
        return;
      case 'stall':
        return;
      case 'answer': {
        const text = JSON.stringify(action.body);
        response.writeHead(action.status, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(text),
          'x-amzn-requestid': randomUUID(),
        });
        response.end(text);
        return;
      }
      case 'pass':
      case 'lose-answer': {
        const answer = await forward(request, raw);
        if (action.kind === 'lose-answer') {
          request.socket.resetAndDestroy();
          return;
        }
        delete answer.headers['transfer-encoding'];
        response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
        response.end(answer.body);
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
