/**
 * A delivery's claims (WriteClaim, shared/domain/ports/leads.ts: a chat's open conversation), in the Leads
 * table (docs/data-model.md, "Delivery claims"):
 *   CLAIM#<account>#<hmac of the party> / CLAIM#<key>   item_type "delivery_claim", held_from, held_from_ms, held_until_ms, claim_value, expires_at
 * Taken by a Put inside the lead's (or the rejection record's) one transaction, conditioned on the claim
 * being free; read, when a source asks, by one consistent GetItem. The party is in the key only as its
 * keyed hash (the person lookup items' keyring), so an erasure that names the person finds the
 * partition and forgets every claim in it (shared/dynamodb/people.ts); the key itself holds no personal
 * data (a number's id). Expired items go with the table's TTL; until then an ended claim is free all the same.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ClaimHeldError } from '../domain/errors.ts';
import type { PersonKeyring } from '../domain/person-data.ts';
import type { WriteClaim, WriteClaimReader } from '../domain/ports/leads.ts';
import { containerPersonKeyring } from '../person-keyring.ts';
import { orUnavailable, TableStore, type CancellationReason } from './requests.ts';
import type { TransactItem } from './transactions.ts';

export const CLAIM_ITEM_TYPE = 'delivery_claim';

/** The partition of a party's claims within an account: what an erasure of the person queries. */
export const claimPartition = (accountId: string, partyDigest: string) => `CLAIM#${accountId}#${partyDigest}`;

const claimKeyOf = async (keyring: PersonKeyring, accountId: string, claim: Pick<WriteClaim, 'key' | 'party'>) => ({
  pk: claimPartition(accountId, await keyring.digest(claim.party)),
  sk: `CLAIM#${claim.key}`,
});

const untilMs = (claim: WriteClaim) => Date.parse(claim.until);

/**
 * The claim's Put for a transaction: free when absent, ended at the claim's time or before, or (this
 * claim carrying a value) held under another value or none since the claim's time or before. A claim
 * older than the one held (a first message Meta delivers again after a later message of its
 * conversation was stored) is of that conversation, whatever its value: it starts no other.
 */
export const claimPut = async (keyring: PersonKeyring, table: string, accountId: string, claim: WriteClaim): Promise<TransactItem> => {
  const atMs = Date.parse(claim.at);
  return {
    Put: {
      TableName: table,
      Item: {
        ...(await claimKeyOf(keyring, accountId, claim)),
        item_type: CLAIM_ITEM_TYPE,
        held_from: claim.at,
        held_from_ms: atMs,
        held_until_ms: untilMs(claim),
        ...(claim.value !== undefined && { claim_value: claim.value }),
        // The table's TTL removes it once it has ended (the condition treats it as free before that).
        expires_at: Math.ceil(untilMs(claim) / 1000),
      },
      ConditionExpression:
        'attribute_not_exists(pk) OR held_until_ms <= :claimAt' +
        (claim.value === undefined ? '' : ' OR ((attribute_not_exists(claim_value) OR claim_value <> :claimValue) AND held_from_ms <= :claimAt)'),
      ExpressionAttributeValues: { ':claimAt': atMs, ...(claim.value !== undefined && { ':claimValue': claim.value }) },
    },
  };
};

/** A write's transaction as ClaimWrites sees it: its items under their names (transactions.ts NamedItems). */
interface ClaimTransaction {
  add(name: typeof CLAIM_ITEM_TYPE, ...items: readonly TransactItem[]): unknown;
  failed(reasons: readonly CancellationReason[], name: typeof CLAIM_ITEM_TYPE): boolean;
}

/**
 * How a store's write takes a delivery's claims: their Puts in its transaction, each under the name
 * `delivery_claim`, and its cancellation read for them. A strategy given by the runtime of the functions
 * whose deliveries carry claims (WhatsApp's, shared/whatsapp/runtime.ts) to their lead store and
 * rejection log: the other functions' stores are given none, so their bundles carry none of this.
 */
export interface ClaimWrites {
  add(transaction: ClaimTransaction, accountId: string, claims: readonly WriteClaim[]): Promise<void>;
  /** Throws ClaimHeldError when one of the claims was held by another delivery: nothing of the write was stored. */
  check(transaction: ClaimTransaction, reasons: readonly CancellationReason[]): void;
}

export const claimWritesOf = (table: string, keyring: PersonKeyring = containerPersonKeyring()): ClaimWrites => ({
  add: async (transaction, accountId, claims) => {
    for (const claim of claims) transaction.add(CLAIM_ITEM_TYPE, await claimPut(keyring, table, accountId, claim));
  },
  check: (transaction, reasons) => {
    if (transaction.failed(reasons, CLAIM_ITEM_TYPE)) throw new ClaimHeldError();
  },
});

/** Whether a stored claim item holds against `claim`: the Put's condition, read the other way round. */
export const holds = (item: Record<string, unknown> | undefined, claim: WriteClaim): boolean => {
  if (!item) return false;
  const atMs = Date.parse(claim.at);
  if (Number(item.held_until_ms) <= atMs) return false;
  return claim.value === undefined || item.claim_value === claim.value || !(Number(item.held_from_ms) <= atMs);
};

/** The request path's read of a claim: one consistent GetItem. */
export class DynamoDbClaimReader extends TableStore implements WriteClaimReader {
  readonly #keyring: PersonKeyring;

  constructor(db: DynamoDBDocumentClient, leadsTable: string, keyring: PersonKeyring = containerPersonKeyring()) {
    super(db, leadsTable);
    this.#keyring = keyring;
  }

  async isHeld(accountId: string, claim: WriteClaim): Promise<boolean> {
    const Key = await claimKeyOf(this.#keyring, accountId, claim);
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key, ConsistentRead: true })));
    return holds(Item, claim);
  }
}
