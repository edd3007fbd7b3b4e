/**
 * Every module of the admin CLI, one line each: a new concern is a file in scripts/admin/ whose default
 * export is its CommandModule, and one line here. The help lists the modules in the order of these
 * lines (kept alphabetical, so branches adding modules touch different lines), their verbs in the
 * module's own order. A verb name used by two modules fails at start (scripts/admin.ts).
 */
export { default as callNumbers } from './call-numbers.ts';
export { default as configuration } from './configuration.ts';
export { default as events } from './events.ts';
export { default as googleForms } from './google-forms.ts';
export { default as keys } from './keys.ts';
export { default as leads } from './leads.ts';
export { default as meta } from './meta.ts';
export { default as people } from './people.ts';
export { default as rejections } from './rejections.ts';
