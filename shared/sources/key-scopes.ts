/**
 * The key scopes of the sources whose key is limited to them alone (`scoped-api-key`), for the admin
 * function: its bundle has a budget of its own (308 KB, test/cdk/bundling.test.ts) that the registry's
 * descriptors, about 6 KB of text for the tools, would exceed, so it reads each scope here, as its
 * source declares it, and no descriptor. The registry (`sourceKeyScopes`) is the authority:
 * test/unit/source-declarations.test.ts holds this list to it, so a source declaring a scope adds it here too.
 */
import { callsKeyScope } from '../calls/wire-names.ts';

export const adminKeyScopes: readonly string[] = [callsKeyScope.name];
