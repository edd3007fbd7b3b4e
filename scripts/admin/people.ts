/**
 * A person's data within an account (CONTRACT.md section 12): `person` answers an access request,
 * `erase` an erasure request, through the same domain operations as the admin API. A mobile number or
 * e-mail that section 2 refuses is a bad argument (exit 2); an unknown account exit 1.
 */
import { AccountNotFoundError, InvalidPersonError } from '../../shared/domain/errors.ts';
import { audited } from '../../shared/domain/audit.ts';
import { PersonData, personHandleOf } from '../../shared/domain/person-data.ts';
import { countOfErased, countOfRecords } from '../../shared/domain/ports/people.ts';
import { auditOf, cliCaller } from './audit.ts';
import { retentionDaySecondsOf } from '../../shared/retention-settings.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { CommandError, HELP, optional, printJsonOr, required, UsageError, type CommandArgs, type CommandModule } from './command.ts';
import { leadTable } from './leads.ts';
import { rejectionTable } from './rejections.ts';

const options = { ...HELP, account: { type: 'string' }, mobile: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean' } } as const;

/** The account and the person the arguments name, and the use case on this repository. */
const request = ({ values }: CommandArgs, repository: () => DynamoDbRepository, verb: string, env: NodeJS.ProcessEnv) => {
  const accountId = required(values.account, '--account', verb);
  const mobile = optional(values.mobile);
  const email = optional(values.email);
  if ((mobile === undefined) === (email === undefined)) throw new UsageError('give --mobile M or --email E (one of them)', verb);
  const repo = repository();
  return { accountId, person: mobile !== undefined ? { mobile_number: mobile } : { email: email! }, people: new PersonData(repo.accounts, repo.people, retentionDaySecondsOf(env)), repo };
};

/** The domain's refusals as the CLI's exit codes: a handle section 2 refuses is a bad argument. */
const refused = (error: unknown, verb: string, accountId: string): never => {
  if (error instanceof InvalidPersonError) throw new UsageError(error.message.replace(/^mobile_number/, '--mobile').replace(/^email/, '--email'), verb);
  if (error instanceof AccountNotFoundError) throw new CommandError(`account ${JSON.stringify(accountId)} does not exist`);
  throw error;
};

/** The person the arguments name, as the domain reads them (a bad one: exit 2 before anything is read). */
const handleOf = (person: Readonly<Record<string, unknown>>, verb: string, accountId: string) => {
  try {
    return personHandleOf(person);
  } catch (error) {
    return refused(error, verb, accountId);
  }
};

const people: CommandModule = {
  person: {
    usage: 'person --account ID (--mobile M | --email E) [--json]',
    summary: "An access request: every lead of the account naming the mobile (as mobile or alternate number) or the e-mail, and every rejection record of a submission that carried it. --json prints {\"leads\", \"rejections\"} whole.",
    options,
    positionals: [],
    run: async (args, repository, io) => {
      const { accountId, person, people: data, repo } = request(args, repository, 'person', io.env);
      const subject = handleOf(person, 'person', accountId);
      const caller = await cliCaller(io);
      const found = await audited(auditOf(repo, io.env), caller, accountId, { operation: 'person_access', subject, count: countOfRecords }, () => data.access(accountId, person)).catch(
        (error: unknown) => refused(error, 'person', accountId),
      );
      // The tables of `leads` and `rejections`; --json has every field, to give the person.
      printJsonOr(io, args.values.json, found, () => `${leadTable(found.leads)}\n${rejectionTable(found.rejections)}`);
    },
  },
  erase: {
    usage: 'erase --account ID (--mobile M | --email E) [--json]',
    summary:
      "An erasure request: erases the person's leads and rejection records, and the number from other leads that name it as alternate number; the CRM hears Lead Erased. Safe to run again after a failure; again, zeros.",
    options,
    positionals: [],
    run: async (args, repository, io) => {
      const { accountId, person, people: data, repo } = request(args, repository, 'erase', io.env);
      const subject = handleOf(person, 'erase', accountId);
      const caller = await cliCaller(io);
      const counts = await audited(auditOf(repo, io.env), caller, accountId, { operation: 'person_erasure', subject, count: countOfErased }, () => data.erase(accountId, person)).catch(
        (error: unknown) => refused(error, 'erase', accountId),
      );
      printJsonOr(io, args.values.json, counts, () => `Erased ${counts.leads} lead(s), ${counts.rejections} rejection record(s), ${counts.alternate_numbers} alternate number(s).\n`);
    },
  },
};

export default people;
