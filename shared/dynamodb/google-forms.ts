/**
 * Google Ads lead forms connected by accounts (CONTRACT.md section 10), in the Config table
 * (docs/data-model.md):
 *   GOOGLEFORM#<form id> / GOOGLEFORM       account_id, project_id, campaign_id, key_hash, connected_at
 *   GOOGLEFORMS#<account id> / FORM#<form id>  project_id, campaign_id, connected_at (the account's listing)
 * The webhook reads one item per delivery (none when warm). Only the key's hash is stored. Both items
 * are written in one transaction. Kept out of the account's own partition: the lead endpoints read
 * that partition whole, and have no use for forms or key hashes.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { GoogleFormChangedError } from '../domain/google-errors.ts';
import type { GoogleFormConnection, GoogleFormGuard, GoogleFormReader, GoogleFormRegistry } from '../domain/ports.ts';
import { asServiceFailure } from './failures.ts';
import { cancellationReasons, orUnavailable, queryAll, TableStore, type CancellationReason } from './requests.ts';

/** A form's partition key begins so: the webhook's IAM grant of its guard's ConditionCheck names it (lib/constructs/lead-tables.ts). */
export const GOOGLE_FORM_PK_PREFIX = 'GOOGLEFORM#';
const formKey = (formId: string) => ({ pk: `${GOOGLE_FORM_PK_PREFIX}${formId}`, sk: 'GOOGLEFORM' });
const listingKey = (accountId: string, formId: string) => ({ pk: `GOOGLEFORMS#${accountId}`, sk: `FORM#${formId}` });

const connectionOf = (item: Record<string, any>): GoogleFormConnection => ({
  formId: item.form_id,
  accountId: item.account_id,
  projectId: item.project_id,
  campaignId: item.campaign_id,
  keyHash: item.key_hash,
  connectedAt: item.connected_at,
});

const formItem = (form: GoogleFormConnection) => ({
  ...formKey(form.formId),
  form_id: form.formId,
  account_id: form.accountId,
  project_id: form.projectId,
  campaign_id: form.campaignId,
  key_hash: form.keyHash,
  connected_at: form.connectedAt,
});

const listingItem = (form: Omit<GoogleFormConnection, 'keyHash'>) => ({
  ...listingKey(form.accountId, form.formId),
  form_id: form.formId,
  project_id: form.projectId,
  campaign_id: form.campaignId,
  connected_at: form.connectedAt,
});

/**
 * A Google delivery's guard as a transaction item: the form's item still names that account and that
 * key hash. It rides in the write the delivery makes anyway (the lead's transaction, or its rejection
 * record's), so a rotated or removed key is refused at once at no extra round trip, whatever the
 * container cached. The lead functions may ConditionCheckItem only items of this partition shape.
 */
export const googleFormGuardCheck = (configTable: string, guard: GoogleFormGuard) => ({
  ConditionCheck: {
    TableName: configTable,
    Key: formKey(guard.formId),
    ConditionExpression: 'key_hash = :guardHash AND account_id = :guardAccount',
    ExpressionAttributeValues: { ':guardHash': guard.keyHash, ':guardAccount': guard.accountId },
  },
});

/**
 * Throws GoogleFormChangedError when the guard's item (at `index` of the cancelled transaction's items)
 * failed its condition: read by index, so it is never taken for a duplicate or a used idempotency key.
 */
export const checkGoogleFormGuard = (reasons: readonly CancellationReason[], index: number, guard: GoogleFormGuard | undefined): void => {
  if (guard && reasons[index]?.Code === 'ConditionalCheckFailed') throw new GoogleFormChangedError(guard.formId);
};

/** The webhook's read of a form: one strongly consistent GetItem (a form connected a moment ago works at once). */
export class DynamoDbGoogleFormReader extends TableStore implements GoogleFormReader {
  async findGoogleForm(formId: string): Promise<GoogleFormConnection | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: formKey(formId), ConsistentRead: true })));
    return Item ? connectionOf(Item) : undefined;
  }
}

/** Forms as the form lifecycle (shared/domain/google-forms.ts) and the seed manage them. */
export class DynamoDbGoogleFormStore extends DynamoDbGoogleFormReader implements GoogleFormRegistry {
  async insertGoogleForm(form: GoogleFormConnection): Promise<boolean> {
    return this.#transact({
      TransactItems: [
        { Put: { TableName: this.table, Item: formItem(form), ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: this.table, Item: listingItem(form) } },
      ],
    });
  }

  async reconnectGoogleForm(formId: string, accountId: string, projectId: string, campaignId: string): Promise<boolean> {
    const existing = await this.findGoogleForm(formId);
    if (existing?.accountId !== accountId) return false;
    return this.#transact({
      TransactItems: [
        {
          Update: {
            TableName: this.table,
            Key: formKey(formId),
            UpdateExpression: 'SET project_id = :project, campaign_id = :campaign',
            ConditionExpression: 'account_id = :account',
            ExpressionAttributeValues: { ':project': projectId, ':campaign': campaignId, ':account': accountId },
          },
        },
        { Put: { TableName: this.table, Item: listingItem({ ...existing, projectId, campaignId }) } },
      ],
    });
  }

  async replaceGoogleFormKey(formId: string, keyHash: string, accountId?: string): Promise<GoogleFormConnection | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: formKey(formId),
          UpdateExpression: 'SET key_hash = :hash',
          ConditionExpression: accountId === undefined ? 'attribute_exists(pk)' : 'account_id = :account',
          ExpressionAttributeValues: { ':hash': keyHash, ...(accountId !== undefined && { ':account': accountId }) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? connectionOf(Attributes) : undefined;
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      throw asServiceFailure(error);
    }
  }

  async removeGoogleForm(formId: string, accountId?: string): Promise<boolean> {
    const existing = await this.findGoogleForm(formId);
    if (!existing || (accountId !== undefined && existing.accountId !== accountId)) return false;
    return this.#transact({
      TransactItems: [
        {
          Delete: {
            TableName: this.table,
            Key: formKey(formId),
            ConditionExpression: 'account_id = :account',
            ExpressionAttributeValues: { ':account': existing.accountId },
          },
        },
        { Delete: { TableName: this.table, Key: listingKey(existing.accountId, formId) } },
      ],
    });
  }

  async listGoogleForms(accountId: string): Promise<Omit<GoogleFormConnection, 'keyHash'>[]> {
    const items = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `GOOGLEFORMS#${accountId}` },
      ConsistentRead: true,
    });
    return items
      .map((item) => ({ formId: item.form_id, accountId, projectId: item.project_id, campaignId: item.campaign_id, connectedAt: item.connected_at }))
      // Numeric order of the ids: shorter digit strings first.
      .sort((a, b) => a.formId.length - b.formId.length || a.formId.localeCompare(b.formId));
  }

  async putGoogleForm(form: GoogleFormConnection): Promise<'stored' | 'connected_to_another_account'> {
    const existing = await this.findGoogleForm(form.formId);
    if (existing && existing.accountId !== form.accountId) return 'connected_to_another_account';
    const stored = { ...form, connectedAt: existing?.connectedAt ?? form.connectedAt };
    const written = await this.#transact({
      TransactItems: [
        {
          Put: {
            TableName: this.table,
            Item: formItem(stored),
            ConditionExpression: 'attribute_not_exists(pk) OR account_id = :account',
            ExpressionAttributeValues: { ':account': form.accountId },
          },
        },
        { Put: { TableName: this.table, Item: listingItem(stored) } },
      ],
    });
    return written ? 'stored' : 'connected_to_another_account';
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
