import { DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { NodeSha256 } from '../aws/node-sha256.ts';
import { wireTransactItems } from './transactions.ts';
import { deadlineBoundHandler, DeadlineRetryStrategy, STANDARD_RETRY } from './deadline-bound.ts';

export interface DocumentClientOptions {
  /** DynamoDB Local's URL; unset in AWS, where the regional endpoint is used. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly client?: DynamoDBClient;
}

/** Longest wait for a connection to DynamoDB, and for the answer to one attempt. */
export const CONNECTION_TIMEOUT_MS = 1_000;
export const ATTEMPT_TIMEOUT_MS = 3_000;

/**
 * The DynamoDB client of a container. Inside a request, every attempt and every retry is bounded by
 * the request's deadline (shared/deadline.ts, ./deadline-bound.ts), so the sender gets a 503 to retry
 * before the function times out; outside one (admin CLI, seeding) an attempt waits at most 3 s, and a
 * call makes at most three attempts.
 */
export const createDynamoDbClient = ({ endpoint, region }: DocumentClientOptions = {}): DynamoDBClient => {
  const client = new DynamoDBClient({
    region: region ?? process.env.AWS_REGION ?? 'local',
    ...(endpoint && { endpoint }),
    // DynamoDB Local accepts any credentials; a tester's machine may have none configured.
    ...(endpoint && !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    // Signing keys as KeyObjects: Node 24's HMAC with a byte key is 5 to 10 times slower (../aws/node-sha256.ts).
    sha256: NodeSha256,
    maxAttempts: STANDARD_RETRY.maxAttempts,
    retryStrategy: new DeadlineRetryStrategy(STANDARD_RETRY),
    // Without throwOnRequestTimeout the SDK only warns and keeps waiting on a hung request.
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: ATTEMPT_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
  // The client reads its handler from its resolved configuration on every send; wrapping the node
  // handler the SDK built from the settings above keeps its sockets, agent and timeouts.
  client.config.requestHandler = deadlineBoundHandler(client.config.requestHandler, ATTEMPT_TIMEOUT_MS);
  trimPerRequestWork(client);
  return client;
};

/**
 * Two things the SDK (3.1162) redoes on every request for nothing, cut where its configuration allows
 * (profiled in docs/performance.md: together about 12% of the client's own CPU per TransactWriteItems):
 * - its signer factory builds a new SignatureV4 per request (copying the whole client configuration),
 *   so the signing key derived from the secret (four HMACs) is never reused from the signer's cache;
 *   the client's one auth scheme (SigV4, dynamodb, its region) gives the same signer every time, so
 *   the first one is kept. Credentials are still read from their provider on every signature, so
 *   rotated role credentials are picked up as before;
 * - its logger middleware filters every input and output for sensitive fields to hand them to a
 *   no-op logger: the service gives the SDK no logger, so the middleware goes.
 */
const trimPerRequestWork = (client: DynamoDBClient): void => {
  const newSigner = client.config.signer;
  let signer: ReturnType<typeof newSigner> | undefined;
  client.config.signer = (authScheme) =>
    (signer ??= newSigner(authScheme).catch((error: unknown) => {
      signer = undefined; // not kept: the next request tries again
      throw error;
    }));
  client.middlewareStack.remove('loggerMiddleware');
};

export const createDocumentClient = (options: DocumentClientOptions = {}): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(options.client ?? createDynamoDbClient(options), {
    marshallOptions: { removeUndefinedValues: true },
  });

/**
 * Runs the request path's three commands (the cold request's GetItem, Query and TransactWriteItems,
 * each as that path sends it) through the client up to the socket, with an already-aborted signal, so
 * nothing is sent: credential, region and endpoint resolution, the SDK's lazily loaded code (node:http
 * for a local endpoint, each command's serializer, marshalling, the signer and its signing key) are
 * paid here, in the function's init phase, which Lambda runs at full CPU before the first request,
 * instead of by the first lead, which runs at the function's share of a CPU (512 MB: under a third).
 * Opening the connection is left to the first request: that needs a real round trip, which the
 * container may never use before it is frozen.
 */
export const primeDocumentClient = async (client: DynamoDBDocumentClient, tableName: string): Promise<void> => {
  const abortSignal = AbortSignal.abort();
  const key = { pk: 'prime', sk: 'prime' };
  const commands = [
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'prime' }, ConsistentRead: true }),
    // The lead's transaction is a low-level command of wire items (./transactions.ts), not the document client's.
    new TransactWriteItemsCommand({ TransactItems: wireTransactItems([{ Put: { TableName: tableName, Item: { ...key, at: 0 }, ConditionExpression: 'attribute_not_exists(pk)' } }]) }),
  ];
  for (const command of commands) {
    try {
      await client.send(command as never, { abortSignal });
    } catch {
      // The abort is the expected end; any other failure here is the first request's to report.
    }
  }
};
