/**
 * WhatsApp numbers' admin operations (CONTRACT.md section 15): the routes of its descriptor's `admin`,
 * on the numbers' lifecycle (numbers.ts), built from the admin function's connection store (numbers
 * are its kind `whatsapp_number`) and accounts.
 */
import type { AccountConfigStore, ConnectionKind, ConnectionRegistry } from '../domain/ports.ts';
import { DynamoDbConnectionStore } from '../dynamodb/connections.ts';
import { created, noContent, ok, sourceAdmin } from '../http/admin-operation.ts';
import { AccountWhatsAppNumbers, WHATSAPP_NUMBER_CONNECTION } from './numbers.ts';
import { whatsappNumberAdminRoutes } from './wire-names.ts';

export default sourceAdmin({
  routes: whatsappNumberAdminRoutes,
  stores: (db, configTable) => ({ connections: (kind: ConnectionKind) => new DynamoDbConnectionStore(db, configTable, kind) }),
  dependencies: ({ connections, accounts }: { readonly connections: (kind: ConnectionKind) => ConnectionRegistry; readonly accounts: AccountConfigStore }) =>
    new AccountWhatsAppNumbers({ numbers: connections(WHATSAPP_NUMBER_CONNECTION), accounts }),
  operations: {
    connectWhatsAppNumber: async (numbers, p, body) => {
      const connected = await numbers.connect(p.accountId!, p.phoneNumberId!, body);
      return connected.created ? created(connected.number) : ok(connected.number);
    },
    listWhatsAppNumbers: async (numbers, p) => ok(await numbers.list(p.accountId!)),
    removeWhatsAppNumber: async (numbers, p) => noContent(await numbers.remove(p.accountId!, p.phoneNumberId!)),
  },
});
