/**
 * API keys, in the Config table (docs/data-model.md):
 *   APIKEY#<sha256 of the key> / APIKEY    account_id, active
 * Only the hash is stored; the plaintext is shown once, when the key is created.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyGrant } from '../domain/lead.ts';
import type { ApiKeyReader } from '../domain/ports.ts';
import { orUnavailable, updateExisting } from './requests.ts';

const apiKeyKey = (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });

/** The request path's read of a key. */
export class DynamoDbApiKeyReader implements ApiKeyReader {
  protected readonly db: DynamoDBDocumentClient;
  protected readonly table: string;

  constructor(db: DynamoDBDocumentClient, configTable: string) {
    this.db = db;
    this.table = configTable;
  }

  async findApiKey(keyHash: string): Promise<ApiKeyGrant | undefined> {
    // Strongly consistent: a key created a moment ago must work at once.
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: apiKeyKey(keyHash), ConsistentRead: true })));
    return Item ? { accountId: Item.account_id, active: Item.active === true } : undefined;
  }
}

/** Keys as the admin CLI and the seed manage them. */
export class DynamoDbApiKeyStore extends DynamoDbApiKeyReader {
  async saveApiKey(keyHash: string, grant: ApiKeyGrant): Promise<void> {
    await orUnavailable(() =>
      this.db.send(new PutCommand({ TableName: this.table, Item: { ...apiKeyKey(keyHash), account_id: grant.accountId, active: grant.active } })),
    );
  }

  /** Marks a key inactive; false when no such key is stored. */
  async revokeApiKey(keyHash: string): Promise<boolean> {
    return updateExisting(this.db, {
      TableName: this.table,
      Key: apiKeyKey(keyHash),
      UpdateExpression: 'SET active = :inactive',
      ExpressionAttributeValues: { ':inactive': false },
    });
  }
}
