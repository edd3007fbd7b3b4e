/**
 * The admin modules of every lead source that has admin routes of its own (its descriptor's
 * `admin.routes`) or a key scope (`keyScope`), one line each, named as the source (its descriptor's
 * `name`). The registry is data
 * and the admin function needs code, so a source with admin routes adds its admin module here too;
 * test/admin/source-admin.test.ts fails for a declared route with no operation. Imported by the admin
 * function only (shared/admin-runtime.ts).
 */
export { default as google_ads } from './google/admin.ts';
export { default as call } from './calls/admin.ts';
export { default as whatsapp } from './whatsapp/admin.ts';
export { default as portals } from './pulled/admin.ts';
