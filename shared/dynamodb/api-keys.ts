/**
 * API keys, in the Config table (docs/data-model.md):
 *   APIKEY#<sha256 of the key> / APIKEY   account_id, active, and (keys with a key id) key_id, label,
 *                                         endpoints, origins, expires_at, grace_ends_at, created_at, dry_runs_only,
 *                                         captcha_provider, captcha_secret (sealed, never in clear), captcha_action (reCAPTCHA v3)
 *   KEYID#<key id> / KEYID                key_hash, account_id      revoke and rotate by key id
 *   ACCOUNTKEYS#<account> / KEY#<key id>  key_hash, created_at      list an account's keys
 * Only the hash is stored; the plaintext is shown once, when the key is created. Everything a request
 * needs about a key is on its APIKEY item, read in one GetItem. The two index items live in partitions
 * of their own, so the account partition the request path reads (accounts.ts) never grows with keys.
 * A key stored before key ids existed has only account_id and active, and keeps working as it did.
 */
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { KeyIdTakenError } from '../domain/errors.ts';
import type { ApiKeyGrant, KeyEndpoint } from '../domain/lead.ts';
import type { ApiKeyReader, ApiKeyRegistry, KeyById, StoredApiKey } from '../domain/ports/keys-and-accounts.ts';
import type { KeyChallenge } from '../domain/challenge.ts';
import { asServiceFailure } from './failures.ts';
import { orUnavailable, queryAll, TableStore, updateExisting, writeOrReadBack } from './requests.ts';

const apiKeyKey = (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
const keyIdKey = (keyId: string) => ({ pk: `KEYID#${keyId}`, sk: 'KEYID' });
const accountKeyKey = (accountId: string, keyId: string) => ({ pk: `ACCOUNTKEYS#${accountId}`, sk: `KEY#${keyId}` });

/** The request path's read of a key. */
export class DynamoDbApiKeyReader extends TableStore implements ApiKeyReader {
  async findApiKey(keyHash: string): Promise<ApiKeyGrant | undefined> {
    // Strongly consistent: a key created a moment ago must work at once.
    const Item = await this.getItem(apiKeyKey(keyHash));
    return Item ? grantOf(Item) : undefined;
  }

  protected async getItem(Key: Record<string, string>): Promise<Record<string, any> | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key, ConsistentRead: true })));
    return Item;
  }
}

/** Keys as the key lifecycle (shared/domain/api-keys.ts), the seed and the tests manage them. */
export class DynamoDbApiKeyStore extends DynamoDbApiKeyReader implements ApiKeyRegistry {
  /** A bare key of the kind stored before key ids existed: no key id, no options (tests of old keys). */
  async saveApiKey(keyHash: string, grant: Pick<ApiKeyGrant, 'accountId' | 'active'>): Promise<void> {
    await orUnavailable(() =>
      this.db.send(new PutCommand({ TableName: this.table, Item: { ...apiKeyKey(keyHash), account_id: grant.accountId, active: grant.active } })),
    );
  }

  /**
   * A new key is not idempotent from outside (a retried create makes another key), so a create whose
   * answer was lost is read back before it is answered 503: the key it stored is the answer.
   */
  async insertKey(keyHash: string, key: StoredApiKey): Promise<void> {
    await writeOrReadBack(
      () =>
        this.transact({
          TransactItems: [
            { Put: { TableName: this.table, Item: keyItem(keyHash, key), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.table, Item: keyIdItem(keyHash, key), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.table, Item: accountKeyItem(keyHash, key) } },
          ],
        }),
      () => this.#holds(keyHash, key.keyId),
    );
  }

  /** Whether the key item of `keyHash` is stored under `keyId` (the read-back of a write). */
  async #holds(keyHash: string, keyId: string): Promise<boolean> {
    return (await this.getItem(apiKeyKey(keyHash)))?.key_id === keyId;
  }

  async putKey(keyHash: string, key: StoredApiKey, attempt = 1): Promise<void> {
    const existing = await this.getItem(apiKeyKey(keyHash));
    // The same key written again keeps when it was first created, the end of a rotation's grace, and
    // a revocation (a restart of `npm start` re-applies its seed and must never bring a revoked or
    // rotated key back). The write is conditioned on what was read, so a revoke or rotation landing
    // in between is read again rather than overwritten.
    const stored: StoredApiKey = {
      ...key,
      active: key.active && existing?.active !== false,
      createdAt: existing?.created_at ?? key.createdAt,
      graceEndsAt: key.graceEndsAt ?? existing?.grace_ends_at ?? null,
    };
    const unchanged = existing
      ? {
          ConditionExpression: 'active = :wasActive AND ' + (existing.grace_ends_at === undefined ? 'attribute_not_exists(grace_ends_at)' : 'grace_ends_at = :wasGrace'),
          ExpressionAttributeValues: { ':wasActive': existing.active, ...(existing.grace_ends_at !== undefined && { ':wasGrace': existing.grace_ends_at }) },
        }
      : { ConditionExpression: 'attribute_not_exists(pk)' };
    const stale: Record<string, string>[] = [];
    if (existing?.key_id && existing.key_id !== key.keyId) stale.push(keyIdKey(existing.key_id), accountKeyKey(existing.account_id, existing.key_id));
    else if (existing?.key_id && existing.account_id !== key.accountId) stale.push(accountKeyKey(existing.account_id, existing.key_id));
    try {
      await this.transact({
        TransactItems: [
          { Put: { TableName: this.table, Item: keyItem(keyHash, stored), ...unchanged } },
          {
            Put: {
              TableName: this.table,
              Item: keyIdItem(keyHash, stored),
              ConditionExpression: 'attribute_not_exists(pk) OR key_hash = :hash',
              ExpressionAttributeValues: { ':hash': keyHash },
            },
          },
          { Put: { TableName: this.table, Item: accountKeyItem(keyHash, stored) } },
          ...stale.map((Key) => ({ Delete: { TableName: this.table, Key } })),
        ],
      });
    } catch (error) {
      if (failedConditions(error)?.[1]) throw new KeyIdTakenError(key.keyId);
      if (failedConditions(error)?.[0] && attempt < 5) return this.putKey(keyHash, key, attempt + 1);
      throw error;
    }
  }

  async findKeyById(keyId: string): Promise<KeyById | undefined> {
    const index = await this.getItem(keyIdKey(keyId));
    if (!index) return undefined;
    const item = await this.getItem(apiKeyKey(index.key_hash));
    return item?.key_id === keyId ? { keyHash: index.key_hash, key: storedKeyOf(item) } : undefined;
  }

  async listAccountKeys(accountId: string): Promise<StoredApiKey[]> {
    const index = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :key)',
      ExpressionAttributeValues: { ':pk': `ACCOUNTKEYS#${accountId}`, ':key': 'KEY#' },
      ConsistentRead: true,
    });
    const items = await this.batchGet(index.map((entry) => apiKeyKey(entry.key_hash)));
    return items
      .filter((item) => item.account_id === accountId && typeof item.key_id === 'string')
      .map(storedKeyOf)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
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

  async rotateKey(oldKeyHash: string, graceEndsAt: string, successorHash: string, successor: StoredApiKey): Promise<string | undefined> {
    const successorItems = [
      { Put: { TableName: this.table, Item: keyItem(successorHash, successor), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: this.table, Item: keyIdItem(successorHash, successor), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: this.table, Item: accountKeyItem(successorHash, successor) } },
    ];
    try {
      // The grace only ever gets shorter, decided by the write itself: of two rotations at once, the
      // earlier end stays in force whichever write lands last. Read back like a create: a rotation
      // retried after a lost answer would make a second successor.
      await writeOrReadBack(
        () =>
          this.transact({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: apiKeyKey(oldKeyHash),
                  UpdateExpression: 'SET grace_ends_at = :end',
                  ConditionExpression: 'active = :active AND (attribute_not_exists(grace_ends_at) OR grace_ends_at > :end)',
                  ExpressionAttributeValues: { ':end': graceEndsAt, ':active': true },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              ...successorItems,
            ],
          }),
        () => this.#holds(successorHash, successor.keyId),
      );
      return graceEndsAt;
    } catch (error) {
      const old = (error as { CancellationReasons?: { Code?: string; Item?: Record<string, { S?: string; BOOL?: boolean }> }[] }).CancellationReasons?.[0];
      if (!failedConditions(error)?.[0]) throw error;
      if (old?.Item?.active?.BOOL !== true || old.Item.grace_ends_at?.S === undefined) return undefined;
      // An earlier end is already set: keep it, and still store the successor (on condition it stays so).
      const earlier = old.Item.grace_ends_at.S;
      try {
        await this.transact({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.table,
                Key: apiKeyKey(oldKeyHash),
                ConditionExpression: 'active = :active AND grace_ends_at = :earlier',
                ExpressionAttributeValues: { ':active': true, ':earlier': earlier },
              },
            },
            ...successorItems,
          ],
        });
        return earlier;
      } catch (again) {
        if (failedConditions(again)?.[0]) return undefined;
        throw again;
      }
    }
  }

  private async transact(input: TransactWriteCommandInput): Promise<void> {
    try {
      await this.db.send(new TransactWriteCommand(input));
    } catch (error) {
      if (failedConditions(error)) throw error;
      throw asServiceFailure(error);
    }
  }

  private async batchGet(keys: Record<string, string>[]): Promise<Record<string, any>[]> {
    const items: Record<string, any>[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      let pending: Record<string, string>[] = keys.slice(start, start + 100);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
        const page = await orUnavailable(() =>
          this.db.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } } })),
        );
        items.push(...(page.Responses?.[this.table] ?? []));
        pending = (page.UnprocessedKeys?.[this.table]?.Keys ?? []) as Record<string, string>[];
      }
    }
    return items;
  }
}

const grantOf = (item: Record<string, any>): ApiKeyGrant => ({
  accountId: item.account_id,
  active: item.active === true,
  ...(typeof item.key_id === 'string' && { keyId: item.key_id }),
  ...(Array.isArray(item.endpoints) && { endpoints: item.endpoints as KeyEndpoint[] }),
  ...(Array.isArray(item.origins) && { origins: item.origins as string[] }),
  ...(typeof item.expires_at === 'string' && { expiresAt: item.expires_at }),
  ...(typeof item.grace_ends_at === 'string' && { graceEndsAt: item.grace_ends_at }),
  ...challengeOf(item),
  ...(item.dry_runs_only === true && { dryRunsOnly: true as const }),
});

/** The key's challenge: its provider and sealed secret, stored together or not at all. */
const challengeOf = (item: Record<string, any>): { captcha?: KeyChallenge } =>
  typeof item.captcha_provider === 'string' && typeof item.captcha_secret === 'string'
    ? {
        captcha: {
          provider: item.captcha_provider as KeyChallenge['provider'],
          sealedSecret: item.captcha_secret,
          ...(typeof item.captcha_action === 'string' && { action: item.captcha_action }),
        },
      }
    : {};

const storedKeyOf = (item: Record<string, any>): StoredApiKey => ({
  keyId: item.key_id,
  accountId: item.account_id,
  active: item.active === true,
  label: item.label ?? null,
  endpoints: item.endpoints ?? null,
  origins: item.origins ?? null,
  expiresAt: item.expires_at ?? null,
  graceEndsAt: item.grace_ends_at ?? null,
  createdAt: item.created_at ?? '',
  ...challengeOf(item),
  ...(item.dry_runs_only === true && { dryRunsOnly: true as const }),
});

/** The key item: absent attributes, not nulls, for "no limit", so a bare old item reads the same way. */
const keyItem = (keyHash: string, key: StoredApiKey) => ({
  ...apiKeyKey(keyHash),
  account_id: key.accountId,
  active: key.active,
  key_id: key.keyId,
  created_at: key.createdAt,
  ...(key.label !== null && { label: key.label }),
  ...(key.endpoints !== null && { endpoints: [...key.endpoints] }),
  ...(key.origins !== null && { origins: [...key.origins] }),
  ...(key.expiresAt !== null && { expires_at: key.expiresAt }),
  ...(key.graceEndsAt !== null && { grace_ends_at: key.graceEndsAt }),
  ...(key.captcha && { captcha_provider: key.captcha.provider, captcha_secret: key.captcha.sealedSecret }),
  ...(key.captcha?.action !== undefined && { captcha_action: key.captcha.action }),
  ...(key.dryRunsOnly && { dry_runs_only: true }),
});

const keyIdItem = (keyHash: string, key: StoredApiKey) => ({ ...keyIdKey(key.keyId), key_hash: keyHash, account_id: key.accountId });
const accountKeyItem = (keyHash: string, key: StoredApiKey) => ({ ...accountKeyKey(key.accountId, key.keyId), key_hash: keyHash, created_at: key.createdAt });

/** For a transaction refused by a condition: which of its items failed theirs; undefined for any other error. */
const failedConditions = (error: unknown): boolean[] | undefined => {
  if ((error as { name?: unknown } | null)?.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  const failed = reasons.map((reason) => reason.Code === 'ConditionalCheckFailed');
  return failed.some(Boolean) ? failed : undefined;
};
