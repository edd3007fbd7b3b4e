import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { JavaMissingError, startDynamoDbLocal } from '../../scripts/dynamodb-local.ts';
import { AWS_CALL_RECORDS_DIR } from './aws-calls.ts';

/** One DynamoDB Local for the whole run; each test file makes its own tables on it. */
export default async function globalSetup() {
  let dynamo;
  try {
    // The JVM's start is CPU: on a machine whose cores other work shares it took over 30 s (the
    // default, for npm start). A Java that is missing or exits is still reported at once.
    dynamo = await startDynamoDbLocal({ startTimeoutMs: 180_000 });
  } catch (error) {
    // Jest would print the error with its stack trace and go on to fail every suite; a newcomer
    // needs the one line that says what to install.
    if (!(error instanceof JavaMissingError)) throw error;
    process.stderr.write(`npm test: ${error.message}\n`);
    process.exit(1);
  }
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  // Where the workers record each function's AWS calls, for the IAM check after the run (test/iam/reporter.ts).
  process.env[AWS_CALL_RECORDS_DIR] = mkdtempSync(path.join(tmpdir(), 'lead-intake-aws-calls-'));
  (globalThis as { __dynamoDbLocal?: typeof dynamo }).__dynamoDbLocal = dynamo;
}
