import { startDynamoDbLocal } from '../../scripts/dynamodb-local.ts';

/** One DynamoDB Local for the whole run; each test file makes its own tables on it. */
export default async function globalSetup() {
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __dynamoDbLocal?: typeof dynamo }).__dynamoDbLocal = dynamo;
}
