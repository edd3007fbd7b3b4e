/**
 * Google Ads lead forms connected by accounts (CONTRACT.md section 10), in the Config table
 * (docs/data-model.md):
 *   GOOGLEFORM#<form id> / GOOGLEFORM       account_id, project_id, campaign_id, key_hash, connected_at
 *   GOOGLEFORMS#<account id> / FORM#<form id>  project_id, campaign_id, connected_at (the account's listing)
 * The webhook reads one item per delivery (none when warm). Only the key's hash is stored. Both items
 * are written in one transaction. A removed form leaves its item as a removal tombstone
 * (connections.ts): a seed applied again never brings it, nor a rotated key, back. Kept out of the account's own partition: the lead endpoints read
 * that partition whole, and have no use for forms or key hashes.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { GoogleFormChangedError } from '../domain/google-errors.ts';
import type { GoogleFormConnection, GoogleFormGuard, GoogleFormReader, GoogleFormRegistry, SeedOutcome } from '../domain/ports.ts';
import { asServiceFailure } from './failures.ts';
import { contendedWrite } from './contended-write.ts';
import { CONNECTED, isRemoved, REMOVED, removalTombstone, seedConnection, type ConnectionState } from './connections.ts';
import { orUnavailable, queryAll, TableStore, type CancellationReason } from './requests.ts';

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
    const item = await this.#item(formId);
    return item && !isRemoved(item) ? connectionOf(item) : undefined;
  }

  /** The form's item as stored, a removal tombstone included. */
  protected async formState(formId: string): Promise<ConnectionState<GoogleFormConnection>> {
    const item = await this.#item(formId);
    return !item ? { state: 'absent' } : isRemoved(item) ? { state: 'removed' } : { state: 'connected', connection: connectionOf(item) };
  }

  async #item(formId: string) {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: formKey(formId), ConsistentRead: true })));
    return Item;
  }
}

/** Forms as the form lifecycle (shared/domain/google-forms.ts) and the seed manage them. */
export class DynamoDbGoogleFormStore extends DynamoDbGoogleFormReader implements GoogleFormRegistry {
  async insertGoogleForm(form: GoogleFormConnection): Promise<boolean> {
    return this.#transact({
      TransactItems: [
        // An operator's connect may reuse a removed form's item; a seed's may not (seedGoogleForm).
        { Put: { TableName: this.table, Item: formItem(form), ConditionExpression: `attribute_not_exists(pk) OR ${REMOVED}` } },
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
            ConditionExpression: `account_id = :account AND ${CONNECTED}`,
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
          ConditionExpression: accountId === undefined ? `attribute_exists(pk) AND ${CONNECTED}` : `account_id = :account AND ${CONNECTED}`,
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
          // The form's item becomes its removal tombstone: no key hash, so no delivery's guard holds.
          Put: {
            TableName: this.table,
            Item: removalTombstone(formKey(formId), { form_id: formId, account_id: existing.accountId }),
            ConditionExpression: `account_id = :account AND ${CONNECTED}`,
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

  /**
   * A seed's form (connections.ts seedConnection): added when the form was never connected;
   * when connected to the account, moved to the seed's project and campaign with its key kept; a
   * removed form stays removed.
   */
  async seedGoogleForm(form: GoogleFormConnection): Promise<SeedOutcome> {
    return seedConnection({
      state: () => this.formState(form.formId),
      accountOf: (connection) => connection.accountId,
      insert: () =>
        this.#transact({
          TransactItems: [
            // Only where no item is: a tombstone left by a removal refuses it.
            { Put: { TableName: this.table, Item: formItem(form), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: this.table, Item: listingItem(form) } },
          ],
        }),
      reconnect: () => this.reconnectGoogleForm(form.formId, form.accountId, form.projectId, form.campaignId),
      accountId: form.accountId,
    });
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
