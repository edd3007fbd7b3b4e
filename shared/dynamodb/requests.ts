/**
 * What every store module shares: one request turned into the contract's 503 on an outage, a query
 * read to its last page, and an update of an item that must exist.
 */
import { createHash } from 'node:crypto';
import { BatchWriteCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { currentDeadline, keepingBack } from '../deadline.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { asServiceFailure, RETRY_AFTER_SECONDS } from './failures.ts';

/** A store module's class: the one table it reads and writes, through the container's client. */
export abstract class TableStore {
  protected readonly db: DynamoDBDocumentClient;
  protected readonly table: string;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.db = db;
    this.table = table;
  }
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Time a write leaves for the read-back that follows a lost answer (a consistent GetItem of a few
 * bytes): a write still unanswered this long before the request's deadline is cut off. With less
 * than 3 s left, a third of what is left.
 */
export const READ_BACK_RESERVE_MS = 1_000;
export const readBackTime = () => Math.min(READ_BACK_RESERVE_MS, (currentDeadline()?.remainingMs() ?? 0) / 3);

/**
 * A write that must not be answered 503 when DynamoDB applied it: a write whose answer was lost,
 * spoiled or cut off by the deadline may still have been applied, and a caller told 503 would write
 * again (a second key, a second successor). The write keeps `readBackTime()` for `isApplied`, a read
 * of what it wrote; if that finds it, the write is done. Failures other than an outage, and an
 * unanswered read-back, keep the write's own failure.
 */
export const writeOrReadBack = async (write: () => Promise<void>, isApplied: () => Promise<boolean>): Promise<void> => {
  try {
    await keepingBack(readBackTime(), write);
  } catch (error) {
    if (error instanceof ServiceUnavailableError && (await isApplied().catch(() => false))) return;
    throw error;
  }
};

/** Sends one request, turning a database outage into the contract's 503. */
export const orUnavailable = async <T>(request: () => Promise<T>): Promise<T> => {
  try {
    return await request();
  } catch (error) {
    throw asServiceFailure(error);
  }
};

/** Every item a query matches (pages only past 1 MB). */
/** A Query's items, a page at a time as the caller takes them: a caller that stops reads no further page. */
export async function* queryItems(db: DynamoDBDocumentClient, input: QueryCommandInput): AsyncIterable<Record<string, any>> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await orUnavailable(() => db.send(new QueryCommand({ ...input, ExclusiveStartKey })));
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

export const queryAll = async (db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Record<string, any>[]> => {
  const items: Record<string, any>[] = [];
  for await (const item of queryItems(db, input)) items.push(item);
  return items;
};

export interface ExistingItemUpdate {
  readonly TableName: string;
  readonly Key: Record<string, string>;
  readonly UpdateExpression: string;
  /** Absent for an update that only removes attributes (DynamoDB refuses an empty map). */
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

/** An update of an item that must exist already: false, and nothing written, when it does not. */
export const updateExisting = async (db: DynamoDBDocumentClient, input: ExistingItemUpdate): Promise<boolean> => {
  try {
    await db.send(new UpdateCommand({ ...input, ConditionExpression: 'attribute_exists(pk)' }));
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
    throw asServiceFailure(error);
  }
};

export interface CancellationReason {
  readonly Code?: string;
  readonly Item?: Record<string, { S?: string }>;
}

/** Why each item of a cancelled transaction failed, in the order of its items; undefined for any other error. */
export const cancellationReasons = (error: unknown): readonly CancellationReason[] | undefined =>
  (error as { name?: unknown } | null)?.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [])
    : undefined;

/** Sends of a batch while DynamoDB leaves part of it unprocessed (throttling). */
const UNPROCESSED_ATTEMPTS = 3;

/**
 * Puts items (at most 25) in one BatchWriteItem: not a transaction, so writers of one partition key do
 * not queue on each other, and each put is idempotent, so what DynamoDB leaves unprocessed is sent
 * again; what is still left after that fails like any outage (503).
 */
export const putAll = async (db: DynamoDBDocumentClient, table: string, items: readonly Record<string, unknown>[]): Promise<void> => {
  let pending = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > UNPROCESSED_ATTEMPTS) throw new ServiceUnavailableError(RETRY_AFTER_SECONDS);
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
    const { UnprocessedItems } = await orUnavailable(() => db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } })));
    pending = (UnprocessedItems?.[table] ?? []) as typeof pending;
  }
};
