import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { createTables } from '../../shared/dynamodb/create-tables.ts';
import { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { apiGatewayEvent, lambdaContext } from '../../shared/http/api-gateway-event.ts';
import { leadRoutes } from '../../shared/sources/registry.ts';

/** The handler modules as Lambda loads them: wired from the environment, one runtime per container. */
describe('the deployed handler modules', () => {
  beforeAll(async () => {
    const endpoint = process.env.TEST_DYNAMODB_ENDPOINT!;
    const client = createDynamoDbClient({ endpoint });
    const tables = await createTables(client, `t${randomUUID().slice(0, 8)}_`);
    const repository = new DynamoDbRepository(createDocumentClient({ client }), tables);
    await new AccountAdmin(repository.accounts).configure({
      id: 'acc-env',
      name: 'Env',
      duplicateSetting: 'ignore',
      projects: new Map([['PRJ-1', { id: 'PRJ-1', name: 'P' }]]),
      campaigns: new Map([['CMP-1', { id: 'CMP-1', projectId: 'PRJ-1', name: 'C' }]]),
      websiteSubSources: new Set(['Skyline landing page']),
      socialSubSources: new Set(['fb']),
    });
    await repository.keys.saveApiKey(hashApiKey('env-key'), { accountId: 'acc-env', active: true });
    Object.assign(process.env, { DYNAMODB_ENDPOINT: endpoint, CONFIG_TABLE_NAME: tables.config, LEADS_TABLE_NAME: tables.leads });
  });

  it.each(leadRoutes.map((route) => [route.endpoint, route] as const))('serve %s from the environment', async (_, route) => {
    const { handler } = await import(`../../${route.entry}`);
    const body = {
      name: 'Env Lead',
      mobile_number: `9${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`,
      projectID: 'PRJ-1',
      campaignID: 'CMP-1',
      sub_source: 'Skyline landing page',
      notes: 'n',
      platform: 'fb',
    };
    const strict = route.endpoint === 'portala' || route.endpoint === 'portalb';
    const payload = strict ? { ...body, sub_source: undefined, platform: undefined } : body;
    const event = apiGatewayEvent({ path: route.path, headers: { 'x-api-key': 'env-key', 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    const response = await handler(event, lambdaContext(route.endpoint));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).status).toBe(true);
  });
});
