import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DocumentClientOptions {
  /** DynamoDB Local's URL; unset in AWS, where the regional endpoint is used. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly client?: DynamoDBClient;
}

/**
 * The DynamoDB client of a container. Short timeouts and three attempts bound a request's wait on a
 * struggling database to a few seconds, well inside API Gateway's 30 s, so the sender gets a 503 to
 * retry rather than a gateway timeout.
 */
export const createDynamoDbClient = ({ endpoint, region }: DocumentClientOptions = {}): DynamoDBClient =>
  new DynamoDBClient({
    region: region ?? process.env.AWS_REGION ?? 'local',
    ...(endpoint && { endpoint }),
    // DynamoDB Local accepts any credentials; a tester's machine may have none configured.
    ...(endpoint && !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    maxAttempts: 3,
    // Without throwOnRequestTimeout the SDK only warns and keeps waiting on a hung request.
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
  });

export const createDocumentClient = (options: DocumentClientOptions = {}): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(options.client ?? createDynamoDbClient(options), {
    marshallOptions: { removeUndefinedValues: true },
  });
