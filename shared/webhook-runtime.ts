/**
 * The wiring of a webhook that names a connection (Google's forms, call numbers), built once per
 * container from its environment: the stores every lead function's request path uses (one DynamoDB
 * client, the key and account cache, the lead and rejection stores) and the source's own connections,
 * cached for the same TTL. Built from the stores, not from the lead endpoints' runtime
 * (shared/runtime.ts): these deliveries carry no browser key, so the bundle carries no challenge
 * verification (its captcha and KMS code, ~3 KB).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AccountDirectory } from './domain/account-directory.ts';
import { newLeadId } from './domain/lead-id.ts';
import { primeDocumentClient } from './dynamodb/client.ts';
import { requestPathStores, type RequestPathStores } from './dynamodb/repository.ts';
import { connectionGuardItem } from './dynamodb/connection-items.ts';
import type { ClaimWrites } from './dynamodb/delivery-claims.ts';
import { configCacheTtlSecondsFromEnvironment, documentClientFromEnvironment, rejectionLogOptionsFromEnvironment, tableNamesFromEnvironment } from './runtime.ts';
import { telemetrySink } from './telemetry.ts';

/** What every connection webhook's handler is given besides its connections. */
export interface WebhookStores {
  readonly directory: AccountDirectory;
  readonly leads: RequestPathStores['leads'];
  readonly rejections: RequestPathStores['rejections'];
  readonly newLeadId: typeof newLeadId;
  readonly now: () => Date;
  readonly log: ReturnType<typeof telemetrySink>;
}

/**
 * A source's runtime: `connections` builds its own directory (on the Config table, with the cache TTL).
 * `fromEnvironment` builds it once per container; `primed` also primes the DynamoDB client at init,
 * like the lead functions' (shared/runtime.ts).
 */
export const connectionWebhookRuntime = <C extends object>(
  connections: (db: DynamoDBDocumentClient, configTable: string, ttlMs: number, container: { readonly leadsTable: string; readonly env: NodeJS.ProcessEnv }) => C,
  /** For a source whose deliveries carry claims (WhatsApp's conversations): how its writes take them, on the Leads table. */
  { claims }: { readonly claims?: (leadsTable: string) => ClaimWrites } = {},
) => {
  let container: (WebhookStores & C) | undefined;
  const fromEnvironment = (env: NodeJS.ProcessEnv = process.env): WebhookStores & C => {
    if (container) return container;
    const db = documentClientFromEnvironment(env);
    const tables = tableNamesFromEnvironment(env);
    // Their deliveries name connections: their writes carry the connection's guard.
    const request = requestPathStores(db, tables, undefined, rejectionLogOptionsFromEnvironment(env), connectionGuardItem(tables.config), claims?.(tables.leads));
    const ttlMs = configCacheTtlSecondsFromEnvironment(env) * 1000;
    container = {
      directory: new AccountDirectory(request.keys, request.accounts, { ttlMs }),
      leads: request.leads,
      rejections: request.rejections,
      newLeadId,
      now: () => new Date(),
      log: telemetrySink(),
      ...connections(db, tables.config, ttlMs, { leadsTable: tables.leads, env }),
    };
    return container;
  };
  const primed = async (env: NodeJS.ProcessEnv = process.env): Promise<WebhookStores & C> => {
    const runtime = fromEnvironment(env);
    await primeDocumentClient(documentClientFromEnvironment(env), tableNamesFromEnvironment(env).leads);
    return runtime;
  };
  return { fromEnvironment, primed };
};
