/**
 * The admin CLI's verbs for a kind of connection (shared/sources/connection-kind.ts), made of its
 * declaration alone: `add-...` (connect or move), the listing, `remove-...`, and `rotate-...-key` for a
 * kind that carries a key. Every rule is the one connection lifecycle's (shared/domain/connection-admin.ts,
 * which the admin API and the seed call too), whose refusals the CLI maps to its exit codes like the key
 * lifecycle's: 2 for bad arguments (an id that is not one), 1 for what failed (an unknown account,
 * project, campaign or connection, another account's). scripts/admin.ts gives each declaring source these
 * verbs, under the module name its declaration gives.
 */
import { connectConnection, filled, listConnections, removeConnection, rotateConnectionKey, type ConnectionAdminDependencies, type ConnectionJson } from '../../shared/domain/connection-admin.ts';
import type { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import type { ConnectionKindDeclaration } from '../../shared/sources/connection-kind.ts';
import { HELP, printJsonOr, required, table, type AdminIo, type CommandModule } from './command.ts';

/** `route`: the path of its source's route, where a connection's deliveries are sent (the hint after a connect). */
export const connectionCommands = (kind: ConnectionKindDeclaration, route: string): CommandModule => {
  const { cli } = kind;
  const { idMember } = kind.words;
  const idFlag = `--${cli.idFlag}`;
  const admin = (repository: DynamoDbRepository): ConnectionAdminDependencies => ({ connections: repository.connections(kind), accounts: repository.accounts });
  const routeShown = Object.entries(cli.connect.routeParameters ?? {}).reduce((path, [name, value]) => path.replace(`{${name}}`, value), route);
  const hint = cli.connect.hint === undefined ? undefined : filled(cli.connect.hint, { route: routeShown });

  /** A new key alone on standard output (for `$(...)`), or the connection with it as one JSON object; the advice on standard error. */
  const printIssued = (connection: ConnectionJson, json: boolean | string | undefined, io: AdminIo, note: string) => {
    printJsonOr(io, json, connection, () => `${connection.key}\n`);
    io.stderr(`${filled(cli.keyAdvice ?? '{note}', { note, hint: hint ?? '' })}\n`);
  };

  const listing = (connections: readonly ConnectionJson[]): string => {
    if (connections.length === 0) return `${cli.list.empty}\n`;
    const columns: [string, (connection: ConnectionJson) => unknown][] = [
      [idMember, (c) => c[idMember]],
      ['project', (c) => c.project_id],
      ['campaign', (c) => c.campaign_id],
      ['connected_at', (c) => c.connected_at],
    ];
    return table(columns, connections) + `${filled(cli.list.counted, { count: connections.length })}\n`;
  };

  const commands: Record<string, CommandModule[string]> = {
    [cli.connect.verb]: {
      usage: `${cli.connect.verb} --account ID ${idFlag} ${cli.idPlaceholder} --project ID --campaign ID [--json]`,
      summary: cli.connect.summary,
      options: { ...HELP, account: { type: 'string' }, [cli.idFlag]: { type: 'string' }, project: { type: 'string' }, campaign: { type: 'string' }, json: { type: 'boolean' } },
      positionals: [],
      run: async ({ values }, repository, io) => {
        const command = cli.connect.verb;
        const input = {
          accountId: required(values.account, '--account', command).trim(),
          id: required(values[cli.idFlag], idFlag, command).trim(),
          projectId: required(values.project, '--project', command).trim(),
          campaignId: required(values.campaign, '--campaign', command).trim(),
        };
        const { created, connection } = await connectConnection(kind, admin(repository()), input);
        const words = { id: connection[idMember]!, account: input.accountId, where: `project ${connection.project_id}, campaign ${connection.campaign_id}` };
        if (created && connection.key !== undefined) return printIssued(connection, values.json, io, filled(cli.connect.created, words));
        printJsonOr(io, values.json, connection, () => `${filled(created ? cli.connect.created : cli.connect.moved, words)}\n`);
        if (created && hint !== undefined) io.stderr(`${hint}\n`);
      },
    },
  };
  if (cli.rotate) {
    const rotate = cli.rotate;
    commands[rotate.verb] = {
      usage: `${rotate.verb} ${idFlag} ${cli.idPlaceholder} [--json]`,
      summary: rotate.summary,
      options: { ...HELP, [cli.idFlag]: { type: 'string' }, json: { type: 'boolean' } },
      positionals: [],
      run: async ({ values }, repository, io) => {
        const connection = await rotateConnectionKey(kind, admin(repository()), required(values[cli.idFlag], idFlag, rotate.verb).trim());
        printIssued(connection, values.json, io, filled(rotate.rotated, { id: connection[idMember]!, account: connection.account_id! }));
      },
    };
  }
  commands[cli.list.verb] = {
    usage: `${cli.list.verb} --account ID [--json]`,
    summary: cli.list.summary,
    options: { ...HELP, account: { type: 'string' }, json: { type: 'boolean' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const connections = await listConnections(kind, admin(repository()), required(values.account, '--account', cli.list.verb).trim());
      printJsonOr(io, values.json, connections, () => listing(connections));
    },
  };
  const remove = cli.remove;
  commands[remove.verb] = {
    usage: `${remove.verb} ${remove.byAccount ? '--account ID ' : ''}${idFlag} ${cli.idPlaceholder}`,
    summary: remove.summary,
    options: { ...HELP, ...(remove.byAccount && { account: { type: 'string' } }), [cli.idFlag]: { type: 'string' } },
    positionals: [],
    run: async ({ values }, repository, io) => {
      const accountId = remove.byAccount ? required(values.account, '--account', remove.verb).trim() : undefined;
      const id = required(values[cli.idFlag], idFlag, remove.verb).trim();
      await removeConnection(kind, admin(repository()), id, accountId);
      io.stdout(`${filled(remove.removed, { id, account: accountId ?? '' })}\n`);
    },
  };
  return commands;
};
