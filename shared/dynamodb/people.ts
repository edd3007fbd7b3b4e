/**
 * A person's items within an account, in the Leads table (docs/data-model.md, "A person's data"):
 *   PERSON#<account>#<hmac of the handle>#<shard> / LEAD#<lead id>        a lead naming the person (role: mobile, alternate_number, email)
 *   PERSON#<account>#<hmac of the handle>#<shard> / REJECTION#<pk>#<sk>   a rejection record made from a submission naming them
 *   ERASURE#<account>#<hmac of the handle> / ERASURE                  the counts of an erasure under way, between runs
 * Lookup items are written in the same request as what they point to (the lead's own transaction,
 * the rejection's write), so finding a person is one Query per shard (16, in parallel) and a
 * BatchGetItem of what it names, however many leads the account has. A key holds a keyed hash, never a
 * mobile or e-mail. The shard comes from the item pointed to: simultaneous leads of one person (a form
 * retried in a loop, a flood) do not all write one partition key in their transactions.
 */
import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { LeadRecord } from '../domain/lead.ts';
import { referencesOf, referencesOfLead, type PersonHandle, type PersonIdentifiers, type PersonKeyring } from '../domain/person-data.ts';
import type { ErasureCounts, PersonDataStore, PersonRecords } from '../domain/ports/people.ts';
import type { StoredRejection } from '../domain/ports/rejections.ts';
import { asServiceFailure } from './failures.ts';
import { LEAD_AGE_SHARDS, LEAD_ITEM_TYPE, leadAgePk, leadRecordOf } from './lead-items.ts';
import { legacyRejectionsPk, REJECTION_SHARDS, rejectionOfItem, rejectionsPk } from './rejection-items.ts';
import { leadAgeIndex } from './tables.ts';
import { erasureReasonPut, type ErasureReason } from './erasure-reasons.ts';
import type { AgedItem, RetentionStore } from '../domain/ports/retention.ts';
import { orUnavailable, queryAll, queryItems, TableStore } from './requests.ts';
import { contendedWrite } from './contended-write.ts';
import { claimPartition } from './delivery-claims.ts';

export const PERSON_REF_TYPE = 'person_ref';
const ERASURE_JOURNAL_SECONDS = 7 * 24 * 60 * 60;

/** Partitions a person's lookup items are spread over; access queries them all. */
export const PERSON_LOOKUP_SHARDS = 16;
const shardOf = (refSk: string) => createHash('sha256').update(refSk).digest()[0]! % PERSON_LOOKUP_SHARDS;
const personPartition = (accountId: string, digest: string) => `PERSON#${accountId}#${digest}`;
/** The lookup item's partition key: the person's partition, and the shard of what it points to. */
const personPk = (accountId: string, digest: string, refSk: string) => `${personPartition(accountId, digest)}#${shardOf(refSk)}`;
const leadRefSk = (leadId: string) => `LEAD#${leadId}`;
const rejectionRefSk = (pk: string, sk: string) => `REJECTION#${pk}#${sk}`;

type Key = { readonly pk: string; readonly sk: string };
type Put = { Put: { TableName: string; Item: Record<string, unknown>; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } };

/**
 * The lookup items of a lead, one per way it names a person, for the lead's own transaction. Each
 * names the idempotency record written with the lead, so an erasure finds it without the key.
 */
export const leadLookupPuts = async (
  keyring: PersonKeyring,
  table: string,
  accountId: string,
  leadKey: Key,
  lead: LeadRecord,
  idempotencyPk?: string,
): Promise<Put[]> =>
  Promise.all(
    referencesOfLead(lead).map(async ({ role, handle }) => ({
      Put: {
        TableName: table,
        Item: {
          pk: personPk(accountId, await keyring.digest(handle), leadRefSk(lead.id)),
          sk: leadRefSk(lead.id),
          item_type: PERSON_REF_TYPE,
          role,
          ref_pk: leadKey.pk,
          ref_sk: leadKey.sk,
          ...(idempotencyPk && { idempotency_pk: idempotencyPk }),
          created_at: lead.created_at,
        },
      },
    })),
  );

/**
 * The lookup items of a rejection record, for the record's own write: they expire with it. The
 * record keeps their partition keys (`person_refs`), so its erasure removes every one of them.
 */
export const rejectionLookups = async (
  keyring: PersonKeyring,
  table: string,
  accountId: string,
  recordKey: Key,
  identifiers: PersonIdentifiers | undefined,
  expiresAt: number,
): Promise<{ readonly puts: Put[]; readonly personRefs: string[] }> => {
  const puts = await Promise.all(
    referencesOf(identifiers ?? {}).map(async ({ role, handle }) => ({
      Put: {
        TableName: table,
        Item: {
          pk: personPk(accountId, await keyring.digest(handle), rejectionRefSk(recordKey.pk, recordKey.sk)),
          sk: rejectionRefSk(recordKey.pk, recordKey.sk),
          item_type: PERSON_REF_TYPE,
          role,
          ref_pk: recordKey.pk,
          ref_sk: recordKey.sk,
          expires_at: expiresAt,
        },
      },
    })),
  );
  return { puts, personRefs: puts.map((put) => put.Put.Item.pk as string) };
};

interface PersonRef {
  readonly pk: string;
  readonly sk: string;
  readonly role: string;
  readonly ref_pk: string;
  readonly ref_sk: string;
  readonly idempotency_pk?: string;
}

const isLeadRef = (ref: PersonRef) => ref.sk.startsWith('LEAD#');
const keyOf = (ref: PersonRef): Key => ({ pk: ref.ref_pk, sk: ref.ref_sk });
const keyText = ({ pk, sk }: Key) => `${pk}\u0000${sk}`;

/** Access and erasure: off the request path (the admin API and CLI). */
/** Keys per page of the sweep's queries: a run bounded in time stops between pages without having read far ahead. */
const AGED_PAGE = 50;

export class DynamoDbPersonData extends TableStore implements PersonDataStore, RetentionStore {
  readonly #keyring: PersonKeyring;

  constructor(db: DynamoDBDocumentClient, leadsTable: string, keyring: PersonKeyring) {
    super(db, leadsTable);
    this.#keyring = keyring;
  }

  async findPerson(accountId: string, person: PersonHandle): Promise<PersonRecords> {
    const { refs, items } = await this.#itemsOf(accountId, person);
    const leads: LeadRecord[] = [];
    const rejections: StoredRejection[] = [];
    for (const ref of refs) {
      const item = items.get(keyText(keyOf(ref)));
      if (!item) continue;
      if (isLeadRef(ref)) leads.push(leadRecordOf(item));
      else rejections.push(rejectionOfItem(item));
    }
    leads.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    rejections.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return { leads, rejections };
  }

  /**
   * One transaction per item (a lead with its lookup items, claim and idempotency record; or a
   * rejection record with its lookup items), each adding to the erasure's journal in the same
   * transaction, so the counts are exact however often a failed erasure is run again. Every delete is
   * conditioned on the item still being there: an item erased by a concurrent erasure is not counted.
   */
  async erasePerson(accountId: string, person: PersonHandle): Promise<ErasureCounts> {
    const digest = await this.#keyring.digest(person);
    const journal: Key = { pk: `ERASURE#${accountId}#${digest}`, sk: 'ERASURE' };
    await this.#openJournal(journal);
    // A quarantine release that committed its lead while this erasure ran, or a repeat stored while it
    // erased the original, is found by another pass (its lead's lookup items name the person): erasure
    // is final against concurrent releases and repeats.
    for (let pass = 1, again = true; again && pass <= 3; pass++) {
      again = false;
      const { refs, items } = await this.#itemsOf(accountId, person);
      for (const ref of refs) {
        const item = items.get(keyText(keyOf(ref)));
        if (!item) {
          // What it named is gone (a rejection's TTL ran first): the pointer goes too.
          await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: ref.pk, sk: ref.sk } })));
        } else if (!isLeadRef(ref)) {
          if (await this.#eraseRejection(item, journal)) again = true;
        } else if (ref.role === 'alternate_number') {
          await this.#eraseAlternateNumber(item, ref, journal);
        } else if (await this.#eraseLead(accountId, item, ref, journal)) {
          // An original is gone: a repeat of it stored after this pass's query (its claim read back
          // before the claim went) is found by the next pass; one stored later reads the claim gone
          // and becomes the original. Either way nothing is left pointing at the erased lead.
          again = true;
        }
      }
    }
    await this.#forgetClaims(accountId, digest);
    return this.#closeJournal(journal);
  }

  /**
   * The person's delivery claims (delivery-claims.ts: their open WhatsApp conversations), so their next
   * message starts anew (CONTRACT.md section 15). Nothing else names them: no count of their own.
   */
  async #forgetClaims(accountId: string, digest: string): Promise<void> {
    const claims = await queryAll(this.db, {
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': claimPartition(accountId, digest) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    for (const { pk, sk } of claims) await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk, sk } })));
  }

  // ---- erasure steps -------------------------------------------------------------------------------

  /**
   * The lead, its lookup items, its mobile claim when it is the original, and its idempotency record as
   * a tombstone. True when it erased an original (with its claim).
   */
  async #eraseLead(accountId: string, item: Record<string, any>, ref: PersonRef, journal: Key): Promise<boolean> {
    const { written, original } = await this.#eraseLeadItem(accountId, item, ref.idempotency_pk, { journal });
    return written && original;
  }

  /**
   * One lead's erasure transaction (see #eraseLead); counted in a person's erasure journal, or, for the
   * retention sweep, marked with its reason instead (erasureReasonPut). `written`: this call erased it.
   */
  async #eraseLeadItem(
    accountId: string,
    item: Record<string, any>,
    idempotencyPk: string | undefined,
    how: { readonly journal?: Key; readonly reason?: ErasureReason },
    attempt = 1,
  ): Promise<{ written: boolean; original: boolean }> {
    const lead = leadRecordOf(item);
    const lookups = await Promise.all(
      referencesOfLead(lead).map(async ({ handle }) => ({
        Delete: { TableName: this.table, Key: { pk: personPk(accountId, await this.#keyring.digest(handle), leadRefSk(lead.id)), sk: leadRefSk(lead.id) } },
      })),
    );
    const claimKey = { pk: item.pk as string, sk: `MOBILE#${lead.mobile_number}` };
    const claim = await this.#get(claimKey);
    const tombstone = await this.#idempotencyWrite(idempotencyPk, lead.id, () => ({ erased: true }));
    const original = claim?.lead_id === lead.id;
    const written = await this.#transact([
      { Delete: { TableName: this.table, Key: { pk: item.pk, sk: item.sk }, ConditionExpression: 'attribute_exists(pk)' } },
      ...lookups,
      // The claim holds the mobile in its key, and releasing it makes the next lead an original.
      ...(original
        ? [{ Delete: { TableName: this.table, Key: claimKey, ConditionExpression: 'lead_id = :lead', ExpressionAttributeValues: { ':lead': lead.id } } }]
        : []),
      ...tombstone,
      ...(how.journal ? [this.#count(how.journal, 'leads')] : []),
      ...(how.reason && how.reason !== 'request' ? [erasureReasonPut(this.table, accountId, lead.id, how.reason)] : []),
    ]);
    // Refused with the lead still there: its key's record was reused in between (or its claim moved); read the step again.
    if (!written && attempt < 3 && (await this.#get({ pk: item.pk, sk: item.sk }))) return this.#eraseLeadItem(accountId, item, idempotencyPk, how, attempt + 1);
    return { written, original };
  }

  // ---- retention (CONTRACT.md section 18) -----------------------------------------------------------

  /**
   * The account's leads created before `before`, oldest first within each by_age shard, page by page:
   * keys only (the index holds nothing else). The index is eventually consistent: a lead just erased may
   * still be listed (eraseAgedLead reads it first), one just stored may not be yet (it is not aged out).
   */
  async *agedLeads(accountId: string, before: string): AsyncIterable<AgedItem> {
    for (let shard = 0; shard < LEAD_AGE_SHARDS; shard++) {
      const aged = queryItems(this.db, {
        TableName: this.table,
        IndexName: leadAgeIndex.name,
        KeyConditionExpression: '#pk = :pk AND #at < :before',
        ExpressionAttributeNames: { '#pk': leadAgeIndex.partitionKey, '#at': leadAgeIndex.sortKey },
        ExpressionAttributeValues: { ':pk': leadAgePk(accountId, shard), ':before': before },
        Limit: AGED_PAGE,
      });
      for await (const item of aged) yield { pk: String(item.pk), sk: String(item.sk) };
    }
  }


  /**
   * Erases one aged-out lead as a person's erasure erases it (the lead, its lookup items, its claim when
   * it is the original, its idempotency record as a tombstone), marked `retention` for its Lead Erased.
   * Read first, consistently: a lead already erased (by an earlier run, or a request) or not older than
   * `before` is left alone, and the delete is conditioned on the lead still being there, so no lead is
   * erased, or heard of as erased, twice. True when this call erased it.
   */
  async eraseAgedLead(accountId: string, lead: AgedItem, before: string): Promise<boolean> {
    const item = await this.#get(lead);
    if (!item || item.item_type !== LEAD_ITEM_TYPE || !(new Date(String(item.created_at)).toISOString() < before)) return false;
    const record = leadRecordOf(item);
    // The idempotency record written with the lead is named by its lookup items (any one of them).
    const [first] = referencesOfLead(record);
    const ref = first && (await this.#get({ pk: personPk(accountId, await this.#keyring.digest(first.handle), leadRefSk(record.id)), sk: leadRefSk(record.id) }));
    const { written } = await this.#eraseLeadItem(accountId, item, ref?.idempotency_pk as string | undefined, { reason: 'retention' });
    return written;
  }

  /** The account's rejection and quarantine records made before `before`: a Query per shard, their sort keys being their time. */
  async *agedRejections(accountId: string, before: string): AsyncIterable<AgedItem> {
    const partitions = [...Array.from({ length: REJECTION_SHARDS }, (_, shard) => rejectionsPk(accountId, shard)), legacyRejectionsPk(accountId)];
    for (const pk of partitions) {
      const aged = queryItems(this.db, {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': pk, ':before': before },
        ProjectionExpression: 'pk, sk',
        Limit: AGED_PAGE,
        ConsistentRead: true,
      });
      for await (const item of aged) yield { pk: String(item.pk), sk: String(item.sk) };
    }
  }


  /** Erases one aged-out record as a person's erasure does (with its lookup items and its quarantine answer); true when this call erased it. */
  async eraseAgedRejection(_accountId: string, record: AgedItem): Promise<boolean> {
    const item = await this.#get(record);
    if (!item || item.item_type !== 'rejection') return false;
    return this.#eraseRejectionItem(item, undefined).then(({ written }) => written);
  }

  /** Another person's lead keeps everything but this number; its idempotency record's copy of the lead loses it too. */
  async #eraseAlternateNumber(item: Record<string, any>, ref: PersonRef, journal: Key): Promise<void> {
    const number = item.alternate_number as string | undefined;
    if (number === undefined) {
      // The lead no longer holds the number (an erasure running beside this one took it): only this lookup item is left.
      await this.#transact([{ Delete: { TableName: this.table, Key: { pk: ref.pk, sk: ref.sk } } }]);
      return;
    }
    const withoutNumber = await this.#idempotencyWrite(ref.idempotency_pk, item.id as string, (stored) => {
      if (typeof stored.lead !== 'string') return undefined;
      const { alternate_number: _erased, ...lead } = JSON.parse(stored.lead) as LeadRecord;
      return { lead: JSON.stringify(lead) };
    });
    await this.#transact([
      {
        Update: {
          TableName: this.table,
          Key: { pk: item.pk, sk: item.sk },
          // erased_fields makes the change a Lead Erased event (shared/dynamodb/lead-stream.ts), never part of the lead record.
          UpdateExpression: 'REMOVE alternate_number SET erased_fields = :fields',
          ConditionExpression: 'alternate_number = :number',
          ExpressionAttributeValues: { ':number': number, ':fields': ['alternate_number'] },
        },
      },
      { Delete: { TableName: this.table, Key: { pk: ref.pk, sk: ref.sk } } },
      ...withoutNumber,
      this.#count(journal, 'alternate_numbers'),
    ]);
  }

  /**
   * The record and its lookup items; and a quarantine's answer kept under its request's Idempotency-Key
   * (a copy of the lead it was answered with), as a tombstone, while that key's record is still the
   * quarantine's own (a release replaces it with the lead, which its own erasure reaches). A quarantine
   * record is deleted only as it was read: released meanwhile (a release's lead write marks it in the
   * same transaction), the lead it became exists and names the person too. Then the record goes all the
   * same, and true asks erasePerson for another pass, which finds that lead by its lookup items.
   */
  async #eraseRejection(item: Record<string, any>, journal: Key): Promise<boolean> {
    return (await this.#eraseRejectionItem(item, journal)).again;
  }

  /** #eraseRejection's steps; `written`: this call deleted the record; `again`: a person's erasure should look again. */
  async #eraseRejectionItem(item: Record<string, any>, journal: Key | undefined, attempt = 1): Promise<{ written: boolean; again: boolean }> {
    const lookupSk = rejectionRefSk(item.pk, item.sk);
    const refs = (item.person_refs as string[] | undefined) ?? [];
    const answer = await this.#idempotencyWrite(item.idempotency_pk, undefined, (stored) => (stored.quarantine_id === item.id ? { erased: true } : undefined));
    const step = (condition: string) =>
      this.#transact([
        { Delete: { TableName: this.table, Key: { pk: item.pk, sk: item.sk }, ConditionExpression: condition } },
        ...refs.map((pk) => ({ Delete: { TableName: this.table, Key: { pk, sk: lookupSk } } })),
        ...answer,
        ...(journal ? [this.#count(journal, 'rejections')] : []),
      ]);
    if (item.released_at !== undefined) {
      // Released already when read: its lead may have been committed after this pass's query (a
      // release that ran beside it), so another pass looks for it (found by test/model).
      return { written: await step('attribute_exists(pk)'), again: true };
    }
    if (await step('attribute_exists(pk) AND attribute_not_exists(released_at)')) return { written: true, again: false };
    const now = await this.#get({ pk: item.pk, sk: item.sk });
    if (now === undefined) return { written: false, again: false };
    // Not released, yet refused: the key's copy of the answer changed under the step (a release took it); read it all again.
    if (now.released_at === undefined) return attempt < 3 ? this.#eraseRejectionItem(now, journal, attempt + 1) : { written: false, again: false };
    return { written: await step('attribute_exists(pk)'), again: true };
  }

  /**
   * The rewrite of a lead's idempotency record (or nothing, when there is none, or it is no longer
   * that lead's): what it keeps besides its key, type and expiry is `keep(stored)`. A tombstone keeps
   * no request hash either (a hash of a body that held the person's details). A key expires after 24
   * hours and may then be reused by a later request (CONTRACT.md section 14): the record is rewritten
   * only while it still holds this lead, checked on the read and, against a reuse landing in between,
   * by the write's condition (the step is then read again: erasePerson's caller runs it anew).
   */
  async #idempotencyWrite(pk: string | undefined, leadId: string | undefined, keep: (stored: Record<string, any>) => Record<string, unknown> | undefined): Promise<Put[]> {
    if (!pk) return [];
    const stored = await this.#get({ pk, sk: 'IDEMPOTENCY' });
    if (!stored || stored.erased || typeof stored.lead !== 'string') return [];
    // undefined: the record is recognised by `keep` alone (a quarantine's answer names its record, not a stored lead).
    if (leadId !== undefined && (JSON.parse(stored.lead) as { id?: unknown }).id !== leadId) return [];
    const kept = keep(stored);
    if (!kept) return [];
    const { lead: _lead, request_hash, ...rest } = stored;
    const base = kept.erased ? { pk, sk: 'IDEMPOTENCY', item_type: stored.item_type, expires_at: stored.expires_at } : { ...rest, request_hash };
    return [
      {
        Put: {
          TableName: this.table,
          Item: { ...base, ...kept },
          ConditionExpression: '#lead = :lead',
          ExpressionAttributeNames: { '#lead': 'lead' },
          ExpressionAttributeValues: { ':lead': stored.lead },
        },
      },
    ];
  }

  /** A transaction of one item's erasure; cancelled by a condition (a concurrent erasure did it first), it counts nothing. */
  async #transact(items: Record<string, unknown>[]): Promise<boolean> {
    const outcome = await contendedWrite({
      send: () => this.db.send(new TransactWriteCommand({ TransactItems: items as never })),
      refusal: (reasons) => (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed') ? ('refused' as const) : undefined),
    });
    return outcome !== 'refused';
  }

  #count(journal: Key, what: keyof ErasureCounts) {
    return { Update: { TableName: this.table, Key: journal, UpdateExpression: 'ADD #count :one', ExpressionAttributeNames: { '#count': what }, ExpressionAttributeValues: { ':one': 1 } } };
  }

  async #openJournal(journal: Key): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...journal, item_type: 'erasure', leads: 0, rejections: 0, alternate_numbers: 0, expires_at: Math.floor(Date.now() / 1000) + ERASURE_JOURNAL_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      // A journal left by an erasure that failed: this run goes on adding to its counts.
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw asServiceFailure(error);
    }
  }

  /** The whole erasure's counts; the journal goes, so the next erasure starts from zeros. */
  async #closeJournal(journal: Key): Promise<ErasureCounts> {
    const stored = await this.#get(journal);
    await orUnavailable(() => this.db.send(new DeleteCommand({ TableName: this.table, Key: journal })));
    return { leads: Number(stored?.leads ?? 0), rejections: Number(stored?.rejections ?? 0), alternate_numbers: Number(stored?.alternate_numbers ?? 0) };
  }

  // ---- reads ---------------------------------------------------------------------------------------

  /** One Query of each of the person's lookup partitions, in parallel, then what they name, 100 keys per BatchGetItem. */
  async #itemsOf(accountId: string, person: PersonHandle): Promise<{ refs: PersonRef[]; items: Map<string, Record<string, any>> }> {
    const partition = personPartition(accountId, await this.#keyring.digest(person));
    const shards = await Promise.all(
      Array.from({ length: PERSON_LOOKUP_SHARDS }, (_, shard) =>
        queryAll(this.db, {
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${partition}#${shard}` },
          ConsistentRead: true,
        }),
      ),
    );
    const refs = shards.flat() as PersonRef[];
    const items = new Map<string, Record<string, any>>();
    const keys = [...new Map(refs.map((ref) => [keyText(keyOf(ref)), keyOf(ref)])).values()];
    for (let start = 0; start < keys.length; start += 100) {
      let pending: Record<string, any>[] | undefined = keys.slice(start, start + 100);
      while (pending && pending.length > 0) {
        const page = await orUnavailable(() =>
          this.db.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending!, ConsistentRead: true } } })),
        );
        for (const item of page.Responses?.[this.table] ?? []) items.set(keyText(item as Key), item);
        pending = page.UnprocessedKeys?.[this.table]?.Keys as Record<string, any>[] | undefined;
      }
    }
    return { refs, items };
  }

  async #get(key: Key): Promise<Record<string, any> | undefined> {
    const { Item } = await orUnavailable(() => this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true })));
    return Item;
  }
}
