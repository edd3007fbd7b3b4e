/**
 * The AWS calls each function makes, recorded while the handler tests run (test/iam/policy-check.ts
 * evaluates them against the function's role in the synthesized template once the run is over).
 *
 * A test helper runs a handler inside `asFunction(name, ...)`; an SDK middleware on the test's DynamoDB
 * client notes each call made inside one as the IAM actions and resources it needs (a transaction's
 * parts one by one, as IAM authorises them). Calls outside a handler (seeding, reading back what a test
 * asserts on) are the test's own and not recorded. Each worker appends the calls it has not seen yet to
 * its own file in AWS_CALL_RECORDS_DIR (set by the global setup): a few hundred short lines a run.
 * Test code only: nothing here is in a function's bundle.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import type { DeclaredLeadSource } from '../../shared/sources/registry.ts';

/**
 * A source's functions by name, from its descriptor: its `invokeName`, or, for an asynchronous source
 * (one with a `worker`), its webhook's and its worker's (`<invokeName>-webhook`, `<invokeName>-worker`).
 */
type FunctionsOf<S> = S extends { readonly worker: object; readonly invokeName: infer N extends string }
  ? `${N}-webhook` | `${N}-worker`
  : S extends { readonly invokeName: infer N extends string }
    ? N
    : never;

/** The functions of the service itself, named by no source. */
export const coreFunctionNames = ['admin', 'lead-events', 'lead-replays', 'source-watch', 'retention-sweep', 'portal-pull', 'portal-schedule'] as const;

/** The stack's functions, by the names the IAM check knows them by (test/iam/policy-check.ts): every declared source's, then the core ones. */
export type FunctionName = FunctionsOf<DeclaredLeadSource> | (typeof coreFunctionNames)[number];

/** A source's function names (FunctionsOf): its webhook's first. */
export const functionNamesOf = (source: LeadSourceDescriptor): FunctionName[] =>
  (source.worker ? [`${source.invokeName}-webhook`, `${source.invokeName}-worker`] : [source.invokeName]) as FunctionName[];

/** One IAM request a function made: the action, the table (by its stack id) and index, and the partition keys it touched. */
export interface RecordedCall {
  readonly fn: FunctionName;
  readonly action: string;
  readonly table: 'Config' | 'Leads';
  readonly index?: string;
  /** `dynamodb:LeadingKeys`: the partition key values of the request. */
  readonly leadingKeys: readonly string[];
}

export const AWS_CALL_RECORDS_DIR = 'AWS_CALL_RECORDS_DIR';

const current = new AsyncLocalStorage<FunctionName>();

/** Runs a handler invocation as the function `fn`: the AWS calls it makes are that function's. */
export const asFunction = <T>(fn: FunctionName, work: () => T): T => current.run(fn, work);

const seen = new Set<string>();
const recordsFile = () => {
  const dir = process.env[AWS_CALL_RECORDS_DIR];
  return dir && path.join(dir, `${process.pid}-${process.env.JEST_WORKER_ID ?? '0'}.jsonl`);
};

const tableOf = (name: string): RecordedCall['table'] => {
  // Local tables are `<prefix>Config` and `<prefix>Leads` (shared/dynamodb/tables.ts).
  if (name.endsWith('Leads')) return 'Leads';
  if (name.endsWith('Config')) return 'Config';
  throw new Error(`an AWS call on a table of no known kind: ${name}`);
};

/** The partition key values of marshalled items or keys (`pk` on both tables). */
const partitionKeys = (...items: Array<Record<string, any> | undefined>): string[] =>
  [...new Set(items.flatMap((item) => (item?.pk?.S ? [String(item.pk.S)] : [])))];

/** The IAM requests of one DynamoDB API call, as IAM authorises them. */
export const iamRequestsOf = (operation: string, input: Record<string, any>): Array<Omit<RecordedCall, 'fn'>> => {
  const one = (action: string, tableName: string, keys: string[], index?: string) => ({
    action: `dynamodb:${action}`,
    table: tableOf(tableName),
    ...(index && { index }),
    leadingKeys: keys,
  });
  switch (operation) {
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Array<Record<string, any>>).map((part) => {
        if (part.Put) return one('PutItem', part.Put.TableName, partitionKeys(part.Put.Item));
        if (part.Update) return one('UpdateItem', part.Update.TableName, partitionKeys(part.Update.Key));
        if (part.Delete) return one('DeleteItem', part.Delete.TableName, partitionKeys(part.Delete.Key));
        return one('ConditionCheckItem', part.ConditionCheck.TableName, partitionKeys(part.ConditionCheck.Key));
      });
    case 'TransactGetItemsCommand':
      return (input.TransactItems as Array<Record<string, any>>).map((part) => one('GetItem', part.Get.TableName, partitionKeys(part.Get.Key)));
    case 'BatchWriteItemCommand':
      return Object.entries(input.RequestItems as Record<string, Array<Record<string, any>>>).map(([table, writes]) =>
        one('BatchWriteItem', table, partitionKeys(...writes.map((w) => w.PutRequest?.Item ?? w.DeleteRequest?.Key))),
      );
    case 'BatchGetItemCommand':
      return Object.entries(input.RequestItems as Record<string, { Keys: Array<Record<string, any>> }>).map(([table, { Keys }]) =>
        one('BatchGetItem', table, partitionKeys(...Keys)),
      );
    case 'QueryCommand': {
      // The value the key condition gives `pk`; on an index, its own partition key, not the table's (no LeadingKeys).
      const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
      const placeholder = [...String(input.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)].find(([, name]) => (names[name!] ?? name) === 'pk')?.[2];
      const value = placeholder ? input.ExpressionAttributeValues?.[placeholder] : undefined;
      return [one('Query', input.TableName, input.IndexName ? [] : partitionKeys({ pk: value }), input.IndexName)];
    }
    case 'GetItemCommand':
    case 'PutItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return [one(operation.replace(/Command$/, ''), input.TableName, partitionKeys(input.Key ?? input.Item))];
    default:
      return [one(operation.replace(/Command$/, ''), input.TableName, [])];
  }
};

const record = (fn: FunctionName, operation: string, input: Record<string, any>): void => {
  const file = recordsFile();
  if (!file) return;
  let lines = '';
  for (const request of iamRequestsOf(operation, input)) {
    const call: RecordedCall = { fn, ...request, leadingKeys: [...request.leadingKeys].map(keyShape).sort() };
    const line = JSON.stringify(call);
    if (seen.has(line)) continue;
    seen.add(line);
    lines += `${line}\n`;
  }
  if (lines) appendFileSync(file, lines);
};

/**
 * Keys differ per test (account ids, hashes); the policies' conditions only look at their kind, the
 * prefix up to the first `#` (`GOOGLEFORM#`, `ACC#`): kept as that prefix, a file's thousands of keys
 * record as a handful of calls.
 */
const keyShape = (key: string): string => {
  const at = key.indexOf('#');
  // A fixed partition's name (`PORTALPULLS`, the schedule's list) is its own kind: kept whole.
  if (at < 0) return /^[A-Z_]+$/.test(key) ? key : key.slice(0, 1);
  return key.slice(0, at + 1);
};

/** Records the calls `client` makes inside `asFunction` (the serialised input, after the document client marshalled it). */
export const recordAwsCalls = (client: DynamoDBClient): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const fn = current.getStore();
      if (fn) record(fn, String(context.commandName), args.input as Record<string, any>);
      return next(args);
    },
    { step: 'build', name: 'recordAwsCallsForIam' },
  );
};
