/**
 * Connections of accounts to their projects and campaigns that a source's deliveries name (CONTRACT.md
 * section 10's Google Ads forms; call numbers next), in the Config table (docs/data-model.md). One
 * store for every kind; a kind's key shape is data (connectionShapes, connection-items.ts). For Google's forms:
 *   GOOGLEFORM#<form id> / GOOGLEFORM          form_id, account_id, project_id, campaign_id, key_hash, connected_at
 *   GOOGLEFORMS#<account id> / FORM#<form id>  form_id, project_id, campaign_id, connected_at (the account's listing)
 * A delivery reads one item (none when warm). Only a key's hash is stored. Both items are written in
 * one transaction. Kept out of the account's own partition: the lead endpoints read that partition
 * whole, and have no use for connections or key hashes.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Connection, ConnectionKind, ConnectionReader, ConnectionRegistry } from '../domain/ports.ts';
import { connectionShapes, itemKey, listingKey, type ConnectionShape } from './connection-items.ts';
import { asServiceFailure } from './failures.ts';
import { cancellationReasons, orUnavailable, queryAll, TableStore } from './requests.ts';

// The key shapes and the guard live in connection-items.ts (no store class: what the lead functions' writes need).
export { CONNECTION_GUARD, checkConnectionGuard, connectionGuardCheck, connectionShapes, type ConnectionShape } from './connection-items.ts';

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
