/**
 * Connections of accounts to their projects and campaigns that a source's deliveries name (CONTRACT.md
 * section 10's Google Ads forms; call numbers next), in the Config table (docs/data-model.md). One
 * store for every kind; a kind's key shape is data (connectionShapes). For Google's forms:
 *   GOOGLEFORM#<form id> / GOOGLEFORM          form_id, account_id, project_id, campaign_id, key_hash, connected_at
 *   GOOGLEFORMS#<account id> / FORM#<form id>  form_id, project_id, campaign_id, connected_at (the account's listing)
 * A delivery reads one item (none when warm). Only a key's hash is stored. Both items are written in
 * one transaction. Kept out of the account's own partition: the lead endpoints read that partition
 * whole, and have no use for connections or key hashes.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConnectionChangedError } from '../domain/errors.ts';
import type { Connection, ConnectionGuard, ConnectionKind, ConnectionReader, ConnectionRegistry } from '../domain/ports.ts';
import { asServiceFailure } from './failures.ts';
import { cancellationReasons, orUnavailable, queryAll, TableStore, type CancellationReason } from './requests.ts';
import type { NamedItems, TransactItem } from './transactions.ts';

/** Where a kind's connections are kept: the names of its two items and the attribute of its id. */
export interface ConnectionShape {
  /** The connection's item: partition key `<partitionPrefix><id>`, sort key `itemSortKey`. */
  readonly partitionPrefix: string;
  readonly itemSortKey: string;
  /** The account's listing: partition key `<listingPrefix><account id>`, sort key `<listingSortPrefix><id>`. */
  readonly listingPrefix: string;
  readonly listingSortPrefix: string;
  /** The attribute that holds the id in both items. */
  readonly idAttribute: string;
}

/** Each kind's key shape: the names stored today (a new kind is one more row). */
export const connectionShapes: Readonly<Record<ConnectionKind, ConnectionShape>> = {
  google_form: { partitionPrefix: 'GOOGLEFORM#', itemSortKey: 'GOOGLEFORM', listingPrefix: 'GOOGLEFORMS#', listingSortPrefix: 'FORM#', idAttribute: 'form_id' },
};

/** The name a guard's ConditionCheck goes under in a transaction (transactions.ts). */
export const CONNECTION_GUARD = 'connection_guard';

const itemKey = (shape: ConnectionShape, id: string) => ({ pk: `${shape.partitionPrefix}${id}`, sk: shape.itemSortKey });
const listingKey = (shape: ConnectionShape, accountId: string, id: string) => ({ pk: `${shape.listingPrefix}${accountId}`, sk: `${shape.listingSortPrefix}${id}` });

/**
 * A delivery's guard as a transaction item: the connection's item still names that account (and that
 * key hash, for a kind with keys). It rides in the write the delivery makes anyway (the lead's
 * transaction, or its rejection record's), so a rotated or removed connection is refused at once at no
 * extra round trip, whatever the container cached. The functions may ConditionCheckItem only items of
 * their kind's partition shape (lib/constructs/lead-tables.ts).
 */
export const connectionGuardCheck = (configTable: string, guard: ConnectionGuard): TransactItem => ({
  ConditionCheck: {
    TableName: configTable,
    Key: itemKey(connectionShapes[guard.kind], guard.id),
    ConditionExpression: guard.keyHash === undefined ? 'account_id = :guardAccount' : 'key_hash = :guardHash AND account_id = :guardAccount',
    ExpressionAttributeValues: { ':guardAccount': guard.accountId, ...(guard.keyHash !== undefined && { ':guardHash': guard.keyHash }) },
  },
});

/**
 * Throws ConnectionChangedError when the guard's item of the cancelled transaction failed its
 * condition: read by its name, so it is never taken for a duplicate or a used idempotency key.
 */
export const checkConnectionGuard = (items: NamedItems<string>, reasons: readonly CancellationReason[], guard: ConnectionGuard | undefined): void => {
  if (guard && items.failed(reasons, CONNECTION_GUARD)) throw new ConnectionChangedError(guard.kind, guard.id);
};

/** The request path's read of one kind's connection: one strongly consistent GetItem (a connection made a moment ago works at once). */
export class DynamoDbConnectionReader extends TableStore implements ConnectionReader {
  protected readonly kind: ConnectionKind;
  protected readonly shape: ConnectionShape;

  constructor(db: DynamoDBDocumentClient, configTable: string, kind: ConnectionKind) {
    super(db, configTable);
    this.kind = kind;
    this.shape = connectionShapes[kind];
  }

  async findConnection(id: string): Promise<Connection | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: itemKey(this.shape, id), ConsistentRead: true })));
    return Item ? this.connectionOf(Item) : undefined;
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
    return this.#transact({
      TransactItems: [
        { Put: { TableName: this.table, Item: this.#item(connection), ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: this.table, Item: this.#listingItem(connection) } },
      ],
    });
  }

  async reconnect(id: string, accountId: string, projectId: string, campaignId: string): Promise<boolean> {
    const existing = await this.findConnection(id);
    if (existing?.accountId !== accountId) return false;
    return this.#transact({
      TransactItems: [
        {
          Update: {
            TableName: this.table,
            Key: itemKey(this.shape, id),
            UpdateExpression: 'SET project_id = :project, campaign_id = :campaign',
            ConditionExpression: 'account_id = :account',
            ExpressionAttributeValues: { ':project': projectId, ':campaign': campaignId, ':account': accountId },
          },
        },
        { Put: { TableName: this.table, Item: this.#listingItem({ ...existing, projectId, campaignId }) } },
      ],
    });
  }

  async replaceKey(id: string, keyHash: string, accountId?: string): Promise<Connection | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: itemKey(this.shape, id),
          UpdateExpression: 'SET key_hash = :hash',
          ConditionExpression: accountId === undefined ? 'attribute_exists(pk)' : 'account_id = :account',
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
    const existing = await this.findConnection(id);
    if (!existing || (accountId !== undefined && existing.accountId !== accountId)) return false;
    return this.#transact({
      TransactItems: [
        {
          Delete: {
            TableName: this.table,
            Key: itemKey(this.shape, id),
            ConditionExpression: 'account_id = :account',
            ExpressionAttributeValues: { ':account': existing.accountId },
          },
        },
        { Delete: { TableName: this.table, Key: listingKey(this.shape, existing.accountId, id) } },
      ],
    });
  }

  async listConnections(accountId: string): Promise<Omit<Connection, 'keyHash'>[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `${this.shape.listingPrefix}${accountId}` },
      ConsistentRead: true,
    });
    return (
      items
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

  async putConnection(connection: Connection): Promise<'stored' | 'connected_to_another_account'> {
    const existing = await this.findConnection(connection.id);
    if (existing && existing.accountId !== connection.accountId) return 'connected_to_another_account';
    const stored = { ...connection, connectedAt: existing?.connectedAt ?? connection.connectedAt };
    const written = await this.#transact({
      TransactItems: [
        {
          Put: {
            TableName: this.table,
            Item: this.#item(stored),
            ConditionExpression: 'attribute_not_exists(pk) OR account_id = :account',
            ExpressionAttributeValues: { ':account': connection.accountId },
          },
        },
        { Put: { TableName: this.table, Item: this.#listingItem(stored) } },
      ],
    });
    return written ? 'stored' : 'connected_to_another_account';
  }

  #item(connection: Connection) {
    return {
      ...itemKey(this.shape, connection.id),
      [this.shape.idAttribute]: connection.id,
      account_id: connection.accountId,
      project_id: connection.projectId,
      campaign_id: connection.campaignId,
      ...(connection.keyHash !== undefined && { key_hash: connection.keyHash }),
      connected_at: connection.connectedAt,
    };
  }

  #listingItem(connection: Omit<Connection, 'keyHash'>) {
    return {
      ...listingKey(this.shape, connection.accountId, connection.id),
      [this.shape.idAttribute]: connection.id,
      project_id: connection.projectId,
      campaign_id: connection.campaignId,
      connected_at: connection.connectedAt,
    };
  }

  /** True when written; false when a condition refused it (nothing written). */
  async #transact(input: TransactWriteCommandInput): Promise<boolean> {
    try {
      await this.db.send(new TransactWriteCommand(input));
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
      throw asServiceFailure(error);
    }
  }
}
