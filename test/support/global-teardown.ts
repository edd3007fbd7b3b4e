import type { RunningDynamoDbLocal } from '../../scripts/dynamodb-local.ts';

export default async function globalTeardown() {
  await (globalThis as { __dynamoDbLocal?: RunningDynamoDbLocal }).__dynamoDbLocal?.stop();
}
