/**
 * Google Ads lead forms' admin operations (CONTRACT.md section 10): the routes of its descriptor's
 * `admin`, made of its kind of connection's declaration (connections.ts) by the one connection lifecycle.
 */
import { connectionAdmin } from '../http/connection-admin.ts';
import { googleFormAdminRoutes, googleFormConnections } from './connections.ts';

export default connectionAdmin({ kind: googleFormConnections, routes: googleFormAdminRoutes });
