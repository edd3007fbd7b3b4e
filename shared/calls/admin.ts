/**
 * Call numbers' admin operations (CONTRACT.md section 13): the routes of its descriptor's `admin`, on
 * the numbers' lifecycle (shared/domain/call-numbers.ts), built from the admin function's number store
 * and accounts.
 */
import { AccountCallNumbers, type CallNumberRegistry } from '../domain/call-numbers.ts';
import type { AccountConfigStore } from '../domain/ports.ts';
import { DynamoDbCallNumberStore } from '../dynamodb/call-numbers.ts';
import { created, noContent, ok, sourceAdmin } from '../http/admin-operation.ts';
import { callNumberAdminRoutes } from './source.ts';

export default sourceAdmin({
  routes: callNumberAdminRoutes,
  stores: (db, configTable) => ({ callNumbers: new DynamoDbCallNumberStore(db, configTable) }),
  dependencies: ({ callNumbers, accounts }: { readonly callNumbers: CallNumberRegistry; readonly accounts: AccountConfigStore }) => new AccountCallNumbers({ numbers: callNumbers, accounts }),
  operations: {
    connectCallNumber: async (numbers, p, body) => {
      const connected = await numbers.connect(p.accountId!, p.number!, body);
      return connected.created ? created(connected.number) : ok(connected.number);
    },
    listCallNumbers: async (numbers, p) => ok(await numbers.list(p.accountId!)),
    removeCallNumber: async (numbers, p) => noContent(await numbers.remove(p.accountId!, p.number!)),
  },
});
