/** An account's leads (CONTRACT.md section 6), read from the lead archive. */
import { audited } from '../../shared/domain/audit.ts';
import type { LeadRecord } from '../../shared/domain/lead.ts';
import { auditOf, cliCaller } from './audit.ts';
import { CommandError, existingAccount, HELP, printJsonOr, required, table, type CommandModule } from './command.ts';

/** The lead records as a table for a terminal; every field of each lead stays in --json. */
export const leadTable = (leads: readonly LeadRecord[]): string => {
  if (leads.length === 0) return 'No leads.\n';
  const columns: [string, (lead: LeadRecord) => unknown][] = [
    ['id', (l) => l.id],
    ['created_at', (l) => l.created_at],
    ['project', (l) => l.projectID],
    ['campaign', (l) => l.campaignID],
    ['source', (l) => l.source],
    ['sub_source', (l) => l.sub_source],
    ['name', (l) => l.name],
    ['mobile', (l) => l.mobile_number],
    ['email', (l) => l.email],
    ['repeat of', (l) => (l.is_repeated ? (l.parent_lead_id ?? 'yes') : '')],
  ];
  return table(columns, leads) + `${leads.length} lead(s)\n`;
};

const leads: CommandModule = {
  leads: {
    usage: 'leads --account ID [--project ID] [--json]',
    summary: "List an account's leads, oldest first: a table, or with --json the lead records as a JSON array.",
    options: { ...HELP, account: { type: 'string' }, project: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = required(values.account, '--account', 'leads');
      const repo = repository();
      await existingAccount(repo, accountId);
      const project = values.project as string | undefined;
      // Retired projects keep their leads: they are listed too.
      const projectIds = await repo.accounts.allProjectIds(accountId);
      if (project !== undefined && !projectIds.includes(project)) {
        throw new CommandError(`project ${JSON.stringify(project)} is not a project of account ${accountId}`);
      }
      const list = () => repo.leadArchive.listLeads(accountId, project === undefined ? projectIds : [project]);
      const found = await audited(auditOf(repo, io.env), await cliCaller(io), accountId, { operation: 'leads_list', count: (listed) => listed.length }, list);
      printJsonOr(io, values.json, found, () => leadTable(found));
    },
  },
};

export default leads;
