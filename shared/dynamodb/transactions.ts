/**
 * A transaction's items, each under the name of what it is (`mobile_claim`, `idempotency_key`,
 * `connection_guard`, ...), as they are built. DynamoDB answers a cancelled transaction with one reason
 * per item, by position: reading them by name means one more item in a write shifts nothing.
 */
import { TransactWriteItemsCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { CancellationReason } from './requests.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class NamedItems<Name extends string> {
  readonly #names: Name[] = [];
  readonly #items: TransactItem[] = [];

  /** Adds items under one name (a name may hold several: a lead's person lookup items). */
  add(name: Name, ...items: readonly TransactItem[]): this {
    for (const item of items) {
      this.#names.push(name);
      this.#items.push(item);
    }
    return this;
  }

  /** The items, in the order they were added: the transaction's `TransactItems`. */
  get items(): TransactItem[] {
    return [...this.#items];
  }

  get size(): number {
    return this.#items.length;
  }

  /** The reason DynamoDB gave for the (first) item of that name; undefined when the write has none. */
  reasonOf(reasons: readonly CancellationReason[], name: Name): CancellationReason | undefined {
    const index = this.#names.indexOf(name);
    return index < 0 ? undefined : reasons[index];
  }

  /** Whether the (first) item of that name failed its condition. */
  failed(reasons: readonly CancellationReason[], name: Name): boolean {
    return this.reasonOf(reasons, name)?.Code === 'ConditionalCheckFailed';
  }
}

/** Which attributes of each kind of transaction item hold item values (DynamoDB's AttributeValue maps on the wire). */
const VALUE_MAPS = ['Item', 'Key', 'ExpressionAttributeValues'] as const;

const toWire = (values: Record<string, unknown>) => marshall(values, { removeUndefinedValues: true });

/**
 * A transaction's items in DynamoDB's wire shape, as the document client marshals them
 * (`removeUndefinedValues`), for a `TransactWriteItemsCommand` sent through the same client.
 * Why not the document client's `TransactWriteCommand`: it marshals the same way, but wraps the
 * low-level command in a second command whose stack is built again on every send, with two more
 * middlewares inserted relative to others: 5% of a new lead's CPU (docs/performance.md, issue 36).
 */
export const wireTransactItems = (items: readonly TransactItem[]): TransactWriteItem[] =>
  items.map((item) => {
    const wire: Record<string, unknown> = {};
    for (const [kind, operation] of Object.entries(item)) {
      if (operation === undefined) continue;
      const copy: Record<string, unknown> = { ...operation };
      for (const map of VALUE_MAPS) if (copy[map] !== undefined) copy[map] = toWire(copy[map] as Record<string, unknown>);
      wire[kind] = copy;
    }
    return wire as TransactWriteItem;
  });

/**
 * Sends a transaction's items as a low-level `TransactWriteItemsCommand` through the document client,
 * which shares the low-level client's middleware stack and settings (deadline, retries, signing).
 */
export const sendTransaction = (db: DynamoDBDocumentClient, items: readonly TransactItem[]): Promise<unknown> =>
  db.send(new TransactWriteItemsCommand({ TransactItems: wireTransactItems(items) }) as never);
