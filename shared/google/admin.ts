/**
 * Google Ads lead forms' admin operations (CONTRACT.md section 10): the routes of its descriptor's
 * `admin`, on the forms' lifecycle (shared/google/forms.ts), built from the admin function's
 * connection store and accounts.
 */
import { AccountGoogleForms, GOOGLE_FORM_CONNECTION } from './forms.ts';
import type { AccountConfigStore, ConnectionRegistry } from '../domain/ports.ts';
import { DynamoDbConnectionStore } from '../dynamodb/connections.ts';
import { created, noContent, ok, sourceAdmin } from '../http/admin-operation.ts';
import { googleFormAdminRoutes } from './wire-names.ts';

export default sourceAdmin({
  routes: googleFormAdminRoutes,
  stores: (db, configTable) => ({ googleForms: new DynamoDbConnectionStore(db, configTable, GOOGLE_FORM_CONNECTION) }),
  dependencies: ({ googleForms, accounts }: { readonly googleForms: ConnectionRegistry; readonly accounts: AccountConfigStore }) => new AccountGoogleForms({ forms: googleForms, accounts }),
  operations: {
    connectGoogleForm: async (forms, p, body) => {
      const connected = await forms.connect(p.accountId!, p.formId!, body);
      return connected.created ? created(connected.form) : ok(connected.form);
    },
    listGoogleForms: async (forms, p) => ok(await forms.list(p.accountId!)),
    removeGoogleForm: async (forms, p) => noContent(await forms.remove(p.accountId!, p.formId!)),
    rotateGoogleFormKey: async (forms, p) => created(await forms.rotate(p.accountId!, p.formId!)),
  },
});
