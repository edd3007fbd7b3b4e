/**
 * Which platform ids are decided already (a lead or a record holds their claim, or an erased lead's
 * tombstone does), read in batches before a pull stores anything (CONTRACT.md section 17): re-pulling
 * a window whose enquiries are all stored costs one BatchGetItem of at most 100 keys per 100 enquiries
 * and no write. A read only: the claim in each write (leads.ts, rejections.ts) is still what keeps an
 * id to one lead or one record when two pulls race.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyClaim } from '../domain/ports/leads.ts';
import type { DecidedClaims } from '../pulled/ports.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { RETRY_AFTER_SECONDS } from './failures.ts';
import { idempotencyPk } from './leads.ts';
import { orUnavailable, TableStore } from './requests.ts';

/** DynamoDB's bound on one BatchGetItem. */
export const CLAIMS_PER_READ = 100;

export class DynamoDbDecidedClaims extends TableStore implements DecidedClaims {
  async decided(accountId: string, claims: readonly IdempotencyClaim[], now: Date): Promise<Set<string>> {
    const byPk = new Map(claims.map((claim) => [idempotencyPk(accountId, claim.key), claim.key]));
    const decided = new Set<string>();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const pks = [...byPk.keys()];
    for (let start = 0; start < pks.length; start += CLAIMS_PER_READ) {
      let keys: Record<string, unknown>[] = pks.slice(start, start + CLAIMS_PER_READ).map((pk) => ({ pk, sk: 'IDEMPOTENCY' }));
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt === 3) throw new ServiceUnavailableError(RETRY_AFTER_SECONDS);
        const answer = await orUnavailable(() =>
          this.db.send(
            new BatchGetCommand({
              RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'pk, expires_at' } },
            }),
          ),
        );
        for (const item of answer.Responses?.[this.table] ?? []) {
          if (item.expires_at === undefined || Number(item.expires_at) >= nowSeconds) decided.add(byPk.get(item.pk)!);
        }
        keys = (answer.UnprocessedKeys?.[this.table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }
    return decided;
  }
}
