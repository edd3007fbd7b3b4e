/**
 * Every module of the admin CLI that belongs to no lead source, one line each: a new concern is a file
 * in scripts/admin/ whose default export is its CommandModule, and one line here. A lead source's own
 * verbs (Google's forms, Meta's pages) are its descriptor's (`adminCli`, shared/sources/registry.ts).
 * The help lists the modules by name, alphabetically (so branches adding modules touch different
 * lines), their verbs in the module's own order. A verb name used by two modules fails at start
 * (scripts/admin.ts).
 */
export { default as audit } from './audit.ts';
export { default as configuration } from './configuration.ts';
export { default as events } from './events.ts';
export { default as keys } from './keys.ts';
export { default as leads } from './leads.ts';
export { default as people } from './people.ts';
export { default as portals } from './portals.ts';
export { default as rejections } from './rejections.ts';
export { default as sources } from './sources.ts';
