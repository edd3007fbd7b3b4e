/**
 * Call numbers' admin operations (CONTRACT.md section 13): the routes of its descriptor's `admin`, on
 * the numbers' lifecycle (numbers.ts), built from the admin function's connection store (numbers are
 * its kind `call_number`) and accounts.
 */
import type { AccountConfigStore, ConnectionKind, ConnectionRegistry } from '../domain/ports.ts';
import { DynamoDbConnectionStore } from '../dynamodb/connections.ts';
import { created, noContent, ok, sourceAdmin } from '../http/admin-operation.ts';
import { AccountCallNumbers, CALL_NUMBER_CONNECTION } from './numbers.ts';
import { callNumberAdminRoutes, callsKeyScope } from './wire-names.ts';

export default sourceAdmin({
  routes: callNumberAdminRoutes,
  keyScope: callsKeyScope,
  stores: (db, configTable) => ({ connections: (kind: ConnectionKind) => new DynamoDbConnectionStore(db, configTable, kind) }),
  dependencies: ({ connections, accounts }: { readonly connections: (kind: ConnectionKind) => ConnectionRegistry; readonly accounts: AccountConfigStore }) =>
    new AccountCallNumbers({ numbers: connections(CALL_NUMBER_CONNECTION), accounts }),
  operations: {
    connectCallNumber: async (numbers, p, body) => {
      const connected = await numbers.connect(p.accountId!, p.number!, body);
      return connected.created ? created(connected.number) : ok(connected.number);
    },
    listCallNumbers: async (numbers, p) => ok(await numbers.list(p.accountId!)),
    removeCallNumber: async (numbers, p) => noContent(await numbers.remove(p.accountId!, p.number!)),
  },
});
