/**
 * Call numbers' admin operations (CONTRACT.md section 13): the routes of its descriptor's `admin`, made of
 * its kind of connection's declaration (connections.ts) by the one connection lifecycle; and its key
 * scope, which the admin API's `create-key` accepts.
 */
import { connectionAdmin } from '../http/connection-admin.ts';
import { callNumberAdminRoutes, callNumberConnections } from './connections.ts';
import { callsKeyScope } from './wire-names.ts';

export default connectionAdmin({ kind: callNumberConnections, routes: callNumberAdminRoutes, keyScope: callsKeyScope });
