/**
 * Connections of accounts to their projects and campaigns that a source's deliveries name (CONTRACT.md
 * section 10's Google Ads forms, section 13's call numbers), in the Config table (docs/data-model.md).
 * One store for every kind; a kind's key shape is its declaration's (shared/sources/connection-kind.ts). Google's
 * forms are one connection per form whatever the account (`platform`), listed per account apart:
 *   GOOGLEFORM#<form id> / GOOGLEFORM          form_id, account_id, project_id, campaign_id, key_hash, connected_at
 *   GOOGLEFORMS#<account id> / FORM#<form id>  form_id, project_id, campaign_id, connected_at (the account's listing)
 * Both items are written in one transaction. Call numbers are connected by each account on its own
 * (`account`), so one account can never block another's number; the item is its own listing:
 *   CALLNUMBERS#<account id> / NUMBER#<10 digits>  number, account_id, project_id, campaign_id, connected_at
 * A delivery reads one item (none when warm). Only a key's hash is stored. Kept out of the account's
 * own partition: the lead endpoints read that partition whole, and have no use for connections or key hashes.
 *
 * As seeds and operators change them (CONTRACT.md section 14), applying a seed never brings back what
 * was rotated or removed: a seed adds what is missing; it changes a stored connection's project and
 * campaign, never its key; and a removal leaves the connection's item as a **removal tombstone**
 * (`removed_at`, no key hash, no target) instead of deleting it, so a later seed can tell "removed"
 * from "never connected". An operator's explicit connect may reuse a tombstone. The reads treat a
 * tombstone as no connection, and a guard never holds on one (it checks `removed_at`, and a project,
 * campaign and key hash a tombstone does not keep).
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Connection, ConnectionKind, ConnectionReader, ConnectionRegistry, SeedOutcome } from '../domain/ports/connections.ts';
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';
import { CONNECTED, isRemoved, itemKey, listingKey, listingPartition, REMOVED, removalTombstone, type ConnectionShape, type PlatformWideShape } from './connection-items.ts';
import { contendedWrite } from './contended-write.ts';
import { asServiceFailure } from './failures.ts';
import { orUnavailable, queryAll, TableStore } from './requests.ts';

// The key shapes and the guard live in connection-items.ts (no store class: what the lead functions' writes need).
export { CONNECTION_GUARD, checkConnectionGuard, connectionGuardCheck, type ConnectionShape } from './connection-items.ts';

/** The request path's read of one kind's connection: one strongly consistent GetItem (a connection made a moment ago works at once). */
export class DynamoDbConnectionReader extends TableStore implements ConnectionReader {
  protected readonly kind: ConnectionKind;
  protected readonly shape: ConnectionShape;

  /** `declaration`: the kind's name and key shape (its source's wire-names.ts). */
  constructor(db: DynamoDBDocumentClient, configTable: string, declaration: ConnectionKeyDeclaration) {
    super(db, configTable);
    // A declared kind's name: the registry's (ConnectionKind), or a test's own.
    this.kind = declaration.kind as ConnectionKind;
    this.shape = declaration.shape;
  }

  async findConnection(id: string, accountId?: string): Promise<Connection | undefined> {
    const item = await this.#item(id, accountId);
    return item && !isRemoved(item) ? this.connectionOf(item) : undefined;
  }

  /** The connection's item as stored, a removal tombstone included. */
  protected async connectionState(id: string, accountId: string): Promise<ConnectionState<Connection>> {
    const item = await this.#item(id, accountId);
    return !item ? { state: 'absent' } : isRemoved(item) ? { state: 'removed' } : { state: 'connected', connection: this.connectionOf(item) };
  }

  async #item(id: string, accountId: string | undefined) {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: itemKey(this.shape, id, accountId), ConsistentRead: true })));
    return Item;
  }

  protected connectionOf(item: Record<string, any>): Connection {
    return {
      kind: this.kind,
      id: item[this.shape.idAttribute],
      accountId: item.account_id,
      projectId: item.project_id,
      campaignId: item.campaign_id,
      ...(item.key_hash !== undefined && { keyHash: item.key_hash }),
      connectedAt: item.connected_at,
    };
  }
}

/** One kind's connections as their lifecycle (shared/domain/) and the seed manage them. */
export class DynamoDbConnectionStore extends DynamoDbConnectionReader implements ConnectionRegistry {
  async insertConnection(connection: Connection): Promise<boolean> {
    // An operator's connect may reuse a removed connection's item; a seed's may not (seed).
    return this.#insert(connection, `attribute_not_exists(pk) OR ${REMOVED}`);
  }

  async reconnect(existing: Omit<Connection, 'keyHash'>, projectId: string, campaignId: string): Promise<boolean> {
    const { id, accountId } = existing;
    return this.#transact({
      TransactItems: [
        {
          Update: {
            TableName: this.table,
            Key: itemKey(this.shape, id, accountId),
            UpdateExpression: 'SET project_id = :project, campaign_id = :campaign',
            // Still the connection read: removed and connected again since, it is read again (its listing keeps its time).
            ConditionExpression: `account_id = :account AND connected_at = :connectedAt AND ${CONNECTED}`,
            ExpressionAttributeValues: { ':project': projectId, ':campaign': campaignId, ':account': accountId, ':connectedAt': existing.connectedAt },
          },
        },
        ...this.#listingPuts({ ...existing, projectId, campaignId }),
      ],
    });
  }

  async replaceKey(id: string, keyHash: string, accountId?: string): Promise<Connection | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: itemKey(this.shape, id, accountId),
          UpdateExpression: 'SET key_hash = :hash',
          ConditionExpression: accountId === undefined ? `attribute_exists(pk) AND ${CONNECTED}` : `account_id = :account AND ${CONNECTED}`,
          ExpressionAttributeValues: { ':hash': keyHash, ...(accountId !== undefined && { ':account': accountId }) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? this.connectionOf(Attributes) : undefined;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      throw asServiceFailure(error);
    }
  }

  async removeConnection(id: string, accountId?: string): Promise<boolean> {
    const existing = await this.findConnection(id, accountId);
    if (!existing || (accountId !== undefined && existing.accountId !== accountId)) return false;
    return this.#transact({
      TransactItems: [
        {
          // The connection's item becomes its removal tombstone: no key hash, so no delivery's guard holds.
          Put: {
            TableName: this.table,
            Item: removalTombstone(itemKey(this.shape, id, existing.accountId), { [this.shape.idAttribute]: id, account_id: existing.accountId }),
            ConditionExpression: `account_id = :account AND ${CONNECTED}`,
            ExpressionAttributeValues: { ':account': existing.accountId },
          },
        },
        ...(this.shape.scope === 'platform' ? [{ Delete: { TableName: this.table, Key: listingKey(this.shape, existing.accountId, id) } }] : []),
      ],
    });
  }

  async listConnections(accountId: string): Promise<Omit<Connection, 'keyHash'>[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': listingPartition(this.shape, accountId) },
      ConsistentRead: true,
    });
    return (
      items
        // An account-scoped kind's items are its listing, its removal tombstones among them.
        .filter((item) => !isRemoved(item))
        .map((item) => ({
          kind: this.kind,
          id: String(item[this.shape.idAttribute]),
          accountId,
          projectId: item.project_id,
          campaignId: item.campaign_id,
          connectedAt: item.connected_at,
        }))
        // Numeric order of the ids: shorter digit strings first.
        .sort((a, b) => a.id.length - b.id.length || a.id.localeCompare(b.id))
    );
  }

  /**
   * A seed's connection (seedConnection): added when it was never connected; when connected to the
   * account, moved to the seed's project and campaign with its key kept; a removed one stays removed.
   */
  async seed(connection: Connection): Promise<SeedOutcome> {
    return seedConnection({
      state: () => this.connectionState(connection.id, connection.accountId),
      accountOf: (stored) => stored.accountId,
      // Only where no item is: a tombstone left by a removal refuses it.
      insert: () => this.#insert(connection, 'attribute_not_exists(pk)'),
      reconnect: (stored) => this.reconnect(stored, connection.projectId, connection.campaignId),
      accountId: connection.accountId,
    });
  }

  /** The connection's item (and its listing's, for a platform-wide kind) in one transaction, under the condition on the first. */
  #insert(connection: Connection, condition: string): Promise<boolean> {
    return this.#transact({
      TransactItems: [{ Put: { TableName: this.table, Item: this.#connectionItem(connection), ConditionExpression: condition } }, ...this.#listingPuts(connection)],
    });
  }

  #connectionItem(connection: Connection) {
    return {
      ...itemKey(this.shape, connection.id, connection.accountId),
      [this.shape.idAttribute]: connection.id,
      account_id: connection.accountId,
      project_id: connection.projectId,
      campaign_id: connection.campaignId,
      ...(connection.keyHash !== undefined && { key_hash: connection.keyHash }),
      connected_at: connection.connectedAt,
    };
  }

  /** A platform-wide kind's listing item, written beside its connection's; none for an account-scoped kind. */
  #listingPuts(connection: Omit<Connection, 'keyHash'>) {
    return this.shape.scope === 'platform' ? [{ Put: { TableName: this.table, Item: this.#listingItem(this.shape, connection) } }] : [];
  }

  #listingItem(shape: PlatformWideShape, connection: Omit<Connection, 'keyHash'>) {
    return {
      ...listingKey(shape, connection.accountId, connection.id),
      [this.shape.idAttribute]: connection.id,
      project_id: connection.projectId,
      campaign_id: connection.campaignId,
      connected_at: connection.connectedAt,
    };
  }

  /** True when written; false when a condition refused it (nothing written). */
  async #transact(input: TransactWriteCommandInput): Promise<boolean> {
    const outcome = await contendedWrite({
      send: () => this.db.send(new TransactWriteCommand(input)),
      refusal: (reasons) => (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed') ? ('refused' as const) : undefined),
    });
    return outcome !== 'refused';
  }
}

// ---- Seeds (CONTRACT.md section 14) ----------------------------------------------------------------

export type ConnectionState<C> = { readonly state: 'absent' } | { readonly state: 'removed' } | { readonly state: 'connected'; readonly connection: C };

export interface SeededConnection<C> {
  readonly accountId: string;
  /** The connection's stored state, read consistently. */
  state(): Promise<ConnectionState<C>>;
  accountOf(connection: C): string;
  /** Writes the seed's connection only where no item is (conditioned so); false when one appeared. */
  insert(): Promise<boolean>;
  /** Moves the account's connection, as read, to the seed's project and campaign, its key untouched; false when it is no longer the account's. */
  reconnect(stored: C): Promise<boolean>;
}

/**
 * Applies one seed entry. Every write is conditioned on what was read, so a removal or another
 * account's connect landing in between is read again, never overwritten.
 */
export const seedConnection = async <C>(seed: SeededConnection<C>): Promise<SeedOutcome> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await seed.state();
    if (stored.state === 'removed') return 'kept_removed';
    if (stored.state === 'connected') {
      if (seed.accountOf(stored.connection) !== seed.accountId) return 'connected_to_another_account';
      if (await seed.reconnect(stored.connection)) return 'reconnected';
      continue;
    }
    if (await seed.insert()) return 'added';
  }
  return 'connected_to_another_account';
};
