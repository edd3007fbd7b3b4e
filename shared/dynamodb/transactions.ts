/**
 * A transaction's items, each under the name of what it is (`mobile_claim`, `idempotency_key`,
 * `connection_guard`, ...), as they are built. DynamoDB answers a cancelled transaction with one reason
 * per item, by position: reading them by name means one more item in a write shifts nothing.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
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
