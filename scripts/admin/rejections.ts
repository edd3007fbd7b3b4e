/** An account's rejection log (CONTRACT.md sections 7 and 11). */
import type { Rejection } from '../../shared/domain/ports.ts';
import { existingAccount, HELP, isoTime, printJsonOr, required, table, type CommandModule } from './command.ts';

const REJECTIONS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/** `mobile_number: must be a 10-digit ...; email: must be ...` or `projectID: PRJ-9`: one line per rejection. */
const compactFields = (fields: Readonly<Record<string, unknown>>): string =>
  Object.entries(fields ?? {})
    .map(([name, value]) => {
      const text = Array.isArray(value) ? value.join(' ') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
      return `${name}: ${text.startsWith(`${name} `) ? text.slice(name.length + 1) : text}`;
    })
    .join('; ');

/** The rejections as a table for a terminal; every field of each stays in --json. */
export const rejectionTable = (found: readonly Rejection[]): string => {
  if (found.length === 0) return 'No rejected submissions.\n';
  const columns: [string, (rejection: Rejection) => unknown][] = [
    ['time', (r) => r.at],
    // A Meta lead is found by its leadgen id (Meta's lead center shows it), a Google one by its lead id.
    ['endpoint', (r) => (r.meta_leadgen_id ? `${r.endpoint} leadgen ${r.meta_leadgen_id}` : r.google_lead_id ? `${r.endpoint} lead ${r.google_lead_id}` : r.endpoint)],
    ['reason', (r) => r.reason],
    ['message', (r) => r.message],
    ['mobile', (r) => r.mobile],
    ['fields', (r) => compactFields(r.fields) + (r.omittedFields ? `; and ${r.omittedFields} more` : '')],
  ];
  return table(columns, found) + `${found.length} rejected submission(s)\n`;
};

const rejections: CommandModule = {
  rejections: {
    usage: 'rejections --account ID [--since ISO-8601] [--json]',
    summary: "List an account's rejected submissions (422s, and bots caught by a browser key's honeypot) of the last 30 days, oldest first: a table, or a JSON array with --json.",
    options: { ...HELP, account: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'rejections');
      const since = values.since === undefined ? undefined : isoTime(values.since as string, '--since', 'rejections');
      const repo = repository();
      await existingAccount(repo, accountId);
      // Kept 30 days: DynamoDB's TTL deletes lazily (up to days late), so older records are not shown.
      const oldest = new Date(Date.now() - REJECTIONS_KEPT_MS).toISOString();
      const found = (await repo.rejections.listRejections(accountId, since)).filter((rejection) => rejection.at >= oldest);
      printJsonOr(io, values.json, found, () => rejectionTable(found));
    },
  },
};

export default rejections;
