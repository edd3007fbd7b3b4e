/**
 * The pull's wiring (CONTRACT.md section 17), built once per container or local process: the stores
 * a lead's request path uses (their writes carrying the login's guard), the logins' store, the batched
 * claim reads, the credential's cipher, the portals with their base URLs, and the bus.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AccountDirectory } from '../domain/account-directory.ts';
import { newLeadId } from '../domain/lead-id.ts';
import { connectionGuardItem } from '../dynamodb/connection-items.ts';
import { DynamoDbDecidedClaims } from '../dynamodb/decided-claims.ts';
import { DynamoDbPortalLoginStore } from '../dynamodb/portal-logins.ts';
import { requestPathStores, type TableNames } from '../dynamodb/repository.ts';
import type { SecretCipher } from '../sealed-secrets.ts';
import { portalHttp } from './http.ts';
import type { PortalEventPublisher, PulledPortal, PullDependencies, PullSettings } from './pull.ts';
import type { PortalHttp, PortalReader, PulledSourceDescriptor } from './types.ts';

export interface PullRuntimeParts {
  readonly db: DynamoDBDocumentClient;
  readonly tables: TableNames;
  readonly cipher: SecretCipher;
  readonly events: PortalEventPublisher;
  readonly portals: readonly { readonly source: PulledSourceDescriptor; readonly reader: PortalReader }[];
  readonly baseUrls: ReadonlyMap<string, string>;
  readonly settings: PullSettings;
  readonly http?: PortalHttp;
  readonly log?: (line: Record<string, unknown>) => void;
  readonly now?: () => Date;
  readonly configCacheTtlMs?: number;
}

export const pullRuntime = (parts: PullRuntimeParts): PullDependencies & { readonly loginStore: DynamoDbPortalLoginStore } => {
  const request = requestPathStores(parts.db, parts.tables, undefined, undefined, connectionGuardItem(parts.tables.config));
  const logins = new DynamoDbPortalLoginStore(parts.db, parts.tables.config);
  const portals = new Map<string, PulledPortal>(parts.portals.map(({ source, reader }) => [source.name, { source, reader, baseUrl: parts.baseUrls.get(source.name) ?? source.baseUrl.default }]));
  return {
    leads: request.leads,
    rejections: request.rejections,
    directory: new AccountDirectory(request.keys, request.accounts, { ttlMs: parts.configCacheTtlMs ?? 30_000 }),
    newLeadId,
    now: parts.now ?? (() => new Date()),
    logins,
    loginStore: logins,
    claims: new DynamoDbDecidedClaims(parts.db, parts.tables.leads),
    cipher: parts.cipher,
    http: parts.http ?? portalHttp(),
    events: parts.events,
    portals,
    settings: parts.settings,
    log: parts.log ?? ((line) => console.log(JSON.stringify(line))),
  };
};
