/**
 * The opaque cursor of a page newest first (the rejection log, the audit): the last item's sort key and
 * the query it was given for, base64url JSON behind a prefix. A cursor of another query, another log or
 * not this service's is refused with one 400, whatever is wrong with it.
 */
import { InvalidConfigurationError } from '../domain/errors.ts';

/** What a page was asked for; a cursor is only good for the same. */
export type CursorScope = Readonly<Record<string, string | undefined>>;

export interface PageCursor {
  encode(sk: string, scope: CursorScope): string;
  /** The sort key to page below; throws InvalidConfigurationError (400) for a cursor it did not give for this scope. */
  decode(cursor: string, scope: CursorScope): string;
}

export const pageCursor = (prefix: string, sortKey: RegExp): PageCursor => ({
  encode: (sk, scope) => prefix + Buffer.from(JSON.stringify({ sk, ...Object.fromEntries(Object.entries(scope).map(([name, value]) => [name, value ?? null])) })).toString('base64url'),
  decode: (cursor, scope) => {
    const refuse = () => new InvalidConfigurationError({ cursor: ['cursor is not one this service gave: start again without it'] });
    if (!cursor.startsWith(prefix) || cursor.length > 400) throw refuse();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8'));
    } catch {
      throw refuse();
    }
    const given = (parsed ?? {}) as Record<string, unknown>;
    if (typeof given.sk !== 'string' || !sortKey.test(given.sk) || Object.entries(scope).some(([name, value]) => given[name] !== (value ?? null))) throw refuse();
    return given.sk;
  },
});
