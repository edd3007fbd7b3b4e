/**
 * WhatsApp numbers' admin operations (CONTRACT.md section 15): the routes of its descriptor's `admin`,
 * made of its kind of connection's declaration (connections.ts) by the one connection lifecycle.
 */
import { connectionAdmin } from '../http/connection-admin.ts';
import { whatsappNumberAdminRoutes, whatsappNumberConnections } from './connections.ts';

export default connectionAdmin({ kind: whatsappNumberConnections, routes: whatsappNumberAdminRoutes });
