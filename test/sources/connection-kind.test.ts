/**
 * A kind of connection declared as data alone gets the whole lifecycle (issue 33): a test-only kind,
 * declared here and nowhere else (no module of the service names it), is connected, moved, listed,
 * rotated, removed and seeded against DynamoDB Local; its admin routes, admin API answers, admin CLI
 * verbs and OpenAPI operations are made of its declaration, in its words; and its behaviour where kinds
 * differ (one account per id, a key or none) is what it declares.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { connectionCommands } from '../../scripts/admin/connections.ts';
import type { AdminIo } from '../../scripts/admin/command.ts';
import {
  ConnectionNotFoundError,
  ConnectionOfAnotherAccountError,
  connectConnection,
  hashConnectionKey,
  InvalidConnectionIdError,
  listConnections,
  removeConnection,
  rotateConnectionKey,
  seedConnection,
  type ConnectionAdminDependencies,
} from '../../shared/domain/connection-admin.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { boundOperations } from '../../shared/http/admin-operation.ts';
import { connectionAdmin } from '../../shared/http/connection-admin.ts';
import type { ConnectionKindDeclaration } from '../../shared/sources/connection-kind.ts';
import { connectionAdminDocumentation } from '../../shared/sources/connection-openapi.ts';
import { connectionAdminRoutes } from '../../shared/sources/connection-routes.ts';
import { connectionSeedMember } from '../../shared/sources/connection-seed.ts';
import { testService, type TestService } from '../support/service.ts';

/** A platform's widgets: one account's each, with a key of their own, ids of 3 to 8 lower-case letters. */
const widgets = {
  kind: 'test_widget',
  shape: { scope: 'platform', partitionPrefix: 'TESTWIDGET#', itemSortKey: 'TESTWIDGET', listingPrefix: 'TESTWIDGETS#', listingSortPrefix: 'WIDGET#', idAttribute: 'widget_id' },
  id: { rule: 'pattern', pattern: '^[a-z]{3,8}$' },
  key: { prefix: 'wk_', randomBytes: 16 },
  connect: { attempts: 2, exhausted: 'another-account' },
  connectAnswer: 'issued',
  words: {
    pathSegment: 'widgets',
    pathParameter: 'widgetId',
    invalidIdProblem: 'must be 3 to 8 letters',
    idMember: 'widget_id',
    operations: { connect: 'connectWidget', list: 'listWidgets', remove: 'removeWidget', rotate: 'rotateWidgetKey' },
    notFound: { status: 404, code: 'widget_not_found', message: 'Widget not found' },
    conflict: { status: 409, code: 'widget_of_another_account', message: 'Widget is connected to another account' },
    messages: {
      invalidIdFlag: 'widget',
      invalidId: 'a widget is 3 to 8 letters, not {value}',
      notConnected: 'Widget {id} is not connected',
      ofAnotherAccount: 'Widget {id} is connected to another account',
      projectNotFound: 'project {value} is not one of {account}',
      campaignNotFound: 'campaign {value} is not one of that project',
    },
  },
  cli: {
    module: 'widgets',
    idFlag: 'widget',
    idPlaceholder: 'W',
    connect: { verb: 'add-widget', summary: 'Connect a widget.', created: 'Widget {id} is connected to {account} ({where}).', moved: 'Widget {id} now sends to {where}.', hint: 'Send to {base_url}{route}.' },
    list: { verb: 'widgets', summary: 'List widgets.', empty: 'No widgets.', counted: '{count} widget(s)' },
    remove: { verb: 'remove-widget', summary: 'Remove a widget.', byAccount: true, removed: 'Widget {id} of {account} is removed.' },
    rotate: { verb: 'rotate-widget-key', summary: 'Rotate a widget key.', rotated: 'Widget {id} of {account} has a new key.' },
    keyAdvice: '{note} Shown once. {hint}',
  },
  seed: { member: 'widgets', idField: 'widgetId', keyField: 'key', invalidId: 'must be a widget', repeated: 'widget {value} twice' },
  openapi: {
    bodySchema: 'WidgetBody',
    connectedSchema: 'Widget',
    listedSchema: 'WidgetSummary',
    schemas: { Widget: { type: 'object' }, WidgetSummary: { type: 'object' } },
    connect: { summary: 'Connect a widget', description: 'Connects.', created: 'Connected', changed: 'Moved' },
    list: { summary: 'Widgets', description: 'Lists.', answer: 'The widgets' },
    remove: { summary: 'Remove a widget', description: 'Removes.', answer: 'Removed' },
    rotate: { summary: 'Rotate a widget key', description: 'Rotates.', answer: 'The new key' },
  },
} as const satisfies ConnectionKindDeclaration;

let service: TestService;
let deps: ConnectionAdminDependencies;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-w1', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await service.seedAccount({ id: 'acc-w2', projects: { 'PRJ-1': ['CMP-1'] } });
  deps = { connections: service.repository.connections(widgets), accounts: service.repository.accounts };
});

const stored = async (pk: string, sk: string) => (await createDocumentClient({ client: service.client }).send(new GetCommand({ TableName: service.tables.config, Key: { pk, sk } }))).Item;

describe('the lifecycle of a kind declared as data alone', () => {
  it('connects under its declared key shape with a key shown once (its hash stored), moves keeping it, and lists it in its words', async () => {
    const first = await connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'alpha', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(first).toEqual({ created: true, connection: { widget_id: 'alpha', account_id: 'acc-w1', project_id: 'PRJ-1', campaign_id: 'CMP-1', key: expect.stringMatching(/^wk_[\w-]{22}$/) } });
    expect(await stored('TESTWIDGET#alpha', 'TESTWIDGET')).toMatchObject({ widget_id: 'alpha', account_id: 'acc-w1', key_hash: hashConnectionKey(first.connection.key!) });
    expect(await stored('TESTWIDGETS#acc-w1', 'WIDGET#alpha')).toMatchObject({ widget_id: 'alpha', project_id: 'PRJ-1' });

    const moved = await connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'alpha', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(moved).toEqual({ created: false, connection: { widget_id: 'alpha', account_id: 'acc-w1', project_id: 'PRJ-2', campaign_id: 'CMP-2' } });
    expect(await stored('TESTWIDGET#alpha', 'TESTWIDGET')).toMatchObject({ key_hash: hashConnectionKey(first.connection.key!) });
    expect(await listConnections(widgets, deps, 'acc-w1')).toEqual([{ widget_id: 'alpha', project_id: 'PRJ-2', campaign_id: 'CMP-2', connected_at: expect.stringMatching(/Z$/) }]);
  });

  it('refuses what its declaration refuses: an id against its rule, another account’s id (its ids are one account’s)', async () => {
    await expect(connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'AB', projectId: 'PRJ-1', campaignId: 'CMP-1' })).rejects.toThrow(new InvalidConnectionIdError(widgets, 'AB'));
    await expect(connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'AB', projectId: 'PRJ-1', campaignId: 'CMP-1' })).rejects.toThrow('a widget is 3 to 8 letters, not "AB"');
    await connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'bravo', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const other = connectConnection(widgets, deps, { accountId: 'acc-w2', id: 'bravo', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    await expect(other).rejects.toBeInstanceOf(ConnectionOfAnotherAccountError);
    await expect(other).rejects.toThrow('Widget bravo is connected to another account');
  });

  it('rotates its key, removes it, and a seed never brings the removed one back', async () => {
    const { connection } = await connectConnection(widgets, deps, { accountId: 'acc-w1', id: 'charlie', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const rotated = await rotateConnectionKey(widgets, deps, 'charlie');
    expect(rotated.key).not.toBe(connection.key);
    expect(await stored('TESTWIDGET#charlie', 'TESTWIDGET')).toMatchObject({ key_hash: hashConnectionKey(rotated.key!) });
    await removeConnection(widgets, deps, 'charlie', 'acc-w1');
    await expect(removeConnection(widgets, deps, 'charlie', 'acc-w1')).rejects.toThrow(new ConnectionNotFoundError(widgets, 'charlie'));
    expect(await seedConnection(widgets, deps, { accountId: 'acc-w1', id: 'charlie', key: 'seed-key', projectId: 'PRJ-1', campaignId: 'CMP-1' })).toBe('removed');
    expect(await deps.connections.findConnection('charlie')).toBeUndefined();
  });

  it('reads and applies its seed member from its declaration alone', async () => {
    const member = connectionSeedMember(widgets);
    const problems: string[] = [];
    const entries = member.reader()([{ widgetId: 'delta', key: 'seed-key', projectID: 'PRJ-1', campaignID: 'CMP-1' }, { widgetId: '9' }], {
      accountId: 'acc-w1',
      at: 'account "acc-w1"',
      projects: new Map([['PRJ-1', { id: 'PRJ-1', name: 'Project 1' }]]),
      campaigns: new Map([['CMP-1', { id: 'CMP-1', projectId: 'PRJ-1', name: 'Campaign 1' }]]),
      problem: (text) => void problems.push(text),
    });
    expect(problems).toEqual(['account "acc-w1".widgets[1].widgetId must be a widget']);
    expect(entries).toEqual([{ accountId: 'acc-w1', widgetId: 'delta', key: 'seed-key', projectId: 'PRJ-1', campaignId: 'CMP-1' }]);
    await member.apply(service.repository, entries);
    expect(await stored('TESTWIDGET#delta', 'TESTWIDGET')).toMatchObject({ account_id: 'acc-w1', key_hash: hashConnectionKey('seed-key') });
  });
});

describe('its admin API, CLI verbs and OpenAPI, made of the declaration', () => {
  const routes = connectionAdminRoutes(widgets);

  it('has its routes under its path segment, rotate-key because it carries a key', () => {
    expect(routes.map((route) => `${route.method} ${route.path} ${route.operation}`)).toEqual([
      'PUT /admin/v1/accounts/{accountId}/widgets/{widgetId} connectWidget',
      'GET /admin/v1/accounts/{accountId}/widgets listWidgets',
      'DELETE /admin/v1/accounts/{accountId}/widgets/{widgetId} removeWidget',
      'POST /admin/v1/accounts/{accountId}/widgets/{widgetId}/rotate-key rotateWidgetKey',
    ]);
    expect(Object.keys(connectionAdminDocumentation(widgets).operations).sort()).toEqual(routes.map((route) => route.operation).sort());
    expect(Object.keys(connectionAdminDocumentation(widgets).schemas)).toEqual(['WidgetBody', 'Widget', 'WidgetSummary']);
  });

  it('answers its operations with its statuses and messages', async () => {
    const operations = boundOperations(connectionAdmin({ kind: widgets, routes }), { connections: service.repository.connections, accounts: service.repository.accounts });
    const request = { query: {}, requestId: 'r-1' };
    const put = await operations.connectWidget!({ accountId: 'acc-w2', widgetId: 'echo' }, { projectId: 'PRJ-1', campaignId: 'CMP-1' }, request);
    expect(put.statusCode).toBe(201);
    expect(JSON.parse(put.body!)).toMatchObject({ widget_id: 'echo', key: expect.stringMatching(/^wk_/) });
    await expect(operations.connectWidget!({ accountId: 'acc-w1', widgetId: 'echo' }, { projectId: 'PRJ-1', campaignId: 'CMP-1' }, request)).rejects.toMatchObject({
      status: 409,
      message: 'Widget is connected to another account',
    });
    await expect(operations.removeWidget!({ accountId: 'acc-w1', widgetId: 'echo' }, {}, request)).rejects.toMatchObject({ status: 404, message: 'Widget not found' });
    expect((await operations.rotateWidgetKey!({ accountId: 'acc-w2', widgetId: 'echo' }, {}, request)).statusCode).toBe(201);
    expect((await operations.removeWidget!({ accountId: 'acc-w2', widgetId: 'echo' }, {}, request)).statusCode).toBe(204);
  });

  it('has its CLI verbs, printing in its words', async () => {
    const commands = connectionCommands(widgets, '/api/widget-webhook');
    expect(Object.keys(commands)).toEqual(['add-widget', 'rotate-widget-key', 'widgets', 'remove-widget']);
    expect(commands['remove-widget']!.usage).toBe('remove-widget --account ID --widget W');
    let stdout = '';
    let stderr = '';
    const io: AdminIo = { env: {}, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) };
    const run = (verb: string, values: Record<string, string>) => commands[verb]!.run({ values, positionals: [] }, () => service.repository, io);
    await run('add-widget', { account: 'acc-w2', widget: 'foxtrot', project: 'PRJ-1', campaign: 'CMP-1' });
    expect(stdout).toMatch(/^wk_[\w-]{22}\n$/);
    expect(stderr).toBe('Widget foxtrot is connected to acc-w2 (project PRJ-1, campaign CMP-1). Shown once. Send to {base_url}/api/widget-webhook.\n');
    stdout = '';
    await run('widgets', { account: 'acc-w2' });
    expect(stdout).toMatch(/^widget_id +project +campaign +connected_at\nfoxtrot +PRJ-1 +CMP-1 +\S+Z\n1 widget\(s\)\n$/);
    stdout = '';
    await run('remove-widget', { account: 'acc-w2', widget: 'foxtrot' });
    expect(stdout).toBe('Widget foxtrot of acc-w2 is removed.\n');
  });
});
