/**
 * A kind of connection's admin operations (CONTRACT.md section 9): its source's admin module is this,
 * made of its declaration (shared/sources/connection-kind.ts) alone. The lifecycle is
 * shared/domain/connection-admin.ts; the routes are its descriptor's (`admin.routes`).
 */
import { AccountConnections } from '../domain/connection-admin.ts';
import type { AccountConfigStore } from '../domain/ports/keys-and-accounts.ts';
import type { ConnectionRegistry } from '../domain/ports/connections.ts';
import { DynamoDbConnectionStore } from '../dynamodb/connections.ts';
import type { AdminRoute } from '../routes.ts';
import type { ConnectionKeyDeclaration, ConnectionLifecycleDeclaration } from '../sources/connection-kind.ts';
import type { KeyScopeDeclaration } from '../sources/descriptor.ts';
import { created, noContent, ok, sourceAdmin, type AdminOperationOn } from './admin-operation.ts';

/** The stores a connection's operations are built from: the connection store of each kind, and the accounts. */
export interface ConnectionAdminStores {
  readonly connections: (kind: ConnectionKeyDeclaration) => ConnectionRegistry;
  readonly accounts: AccountConfigStore;
}

export const connectionAdmin = ({ kind, routes, keyScope }: { readonly kind: ConnectionLifecycleDeclaration; readonly routes: readonly AdminRoute[]; readonly keyScope?: KeyScopeDeclaration }) => {
  const { operations: names, pathParameter } = kind.words;
  const operations: Record<string, AdminOperationOn<AccountConnections>> = {
    [names.connect]: async (connections, p, body) => {
      const connected = await connections.connect(p.accountId!, p[pathParameter]!, body);
      return connected.created ? created(connected.connection) : ok(connected.connection);
    },
    [names.list]: async (connections, p) => ok(await connections.list(p.accountId!)),
    [names.remove]: async (connections, p) => noContent(await connections.remove(p.accountId!, p[pathParameter]!)),
    ...(kind.key &&
      names.rotate !== undefined && { [names.rotate]: async (connections: AccountConnections, p: Readonly<Record<string, string>>) => created(await connections.rotate(p.accountId!, p[pathParameter]!)) }),
  };
  return sourceAdmin({
    routes,
    ...(keyScope && { keyScope }),
    stores: (db, configTable) => ({ connections: (declaration: ConnectionKeyDeclaration) => new DynamoDbConnectionStore(db, configTable, declaration) }),
    dependencies: ({ connections, accounts }: ConnectionAdminStores) => new AccountConnections(kind, { connections: connections(kind), accounts }),
    operations,
  });
};
