/**
 * Fault injection on a real SDK client: a middleware that fails chosen commands before they are sent,
 * as DynamoDB would answer them. Everything else reaches DynamoDB Local.
 */
import { TransactionCanceledException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export type Fault = (commandName: string) => Error | undefined;

/**
 * `before`: the request never reaches DynamoDB. `after`: DynamoDB applies it, but its answer is lost
 * (a timeout or a reset connection on the way back).
 */
export const injectFaults = (client: DynamoDBClient, fault: Fault, when: 'before' | 'after' = 'before') => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (when === 'before') {
        const error = fault(String(context.commandName));
        if (error) throw error;
        return next(args);
      }
      const result = await next(args);
      const error = fault(String(context.commandName));
      if (error) throw error;
      return result;
    },
    { step: 'initialize', name: `injectFaults-${when}`, priority: 'low' },
  );
};

/** What real DynamoDB answers when two transactions race on one item (DynamoDB Local never does). */
export const transactionConflict = () =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }],
  });

export const namedError = (name: string, message = name, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, $metadata: {}, ...extra });

/** Once armed, fails the next `times` calls of a command, then lets calls through. */
export const failFirst = (commandName: string, times: number, error: () => Error) => {
  let armed = false;
  let failures = 0;
  const fault: Fault = (name) => {
    if (!armed || name !== commandName || failures >= times) return undefined;
    failures += 1;
    return error();
  };
  return { fault, arm: () => void (armed = true), disarm: () => void (armed = false), failures: () => failures };
};
