import { describe, expect, it } from '@jest/globals';
import { isDatabaseUnavailable } from '../../shared/dynamodb/failures.ts';

describe('telling a database outage from other failures', () => {
  it.each([
    ['throttling', { name: 'ThrottlingException' }],
    ['exceeded throughput', { name: 'ProvisionedThroughputExceededException' }],
    ['a refused connection', { name: 'Error', code: 'ECONNREFUSED' }],
    ["the SDK's wrapper of a socket error", { name: 'Error', message: 'AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:8000' }],
    ['a reset connection as the cause', { name: 'Error', message: 'socket hang up', cause: { code: 'ECONNRESET' } }],
    ['a timeout', { name: 'TimeoutError' }],
    ['a 5xx from DynamoDB', { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }],
  ])('counts %s as an outage', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a validation error', { name: 'ValidationException', $metadata: { httpStatusCode: 400 } }],
    ['a missing table', { name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 400 } }],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'S')")],
    ['nothing at all', undefined],
  ])('does not count %s as an outage', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
