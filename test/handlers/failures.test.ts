import { beforeAll, describe, expect, it } from '@jest/globals';
import { failFirst, injectFaults, namedError } from '../support/faults.ts';
import { endpointNames, testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

const faultyService = async (command: string, error: () => Error) => {
  const faults = failFirst(command, 1_000, error);
  const service = await testService({ instrument: (client) => injectFaults(client, faults.fault) });
  await service.seedAccount({ id: 'acc-a', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb'] });
  const apiKey = await service.issueKey('acc-a');
  faults.arm();
  return { service, apiKey, faults };
};

describe('when DynamoDB throttles or cannot be reached', () => {
  it.each([
    ['throttling on the key lookup', 'GetItemCommand', () => namedError('ThrottlingException')],
    ['provisioned throughput exceeded on the configuration', 'QueryCommand', () => namedError('ProvisionedThroughputExceededException')],
    ['a refused connection on the lead write', 'TransactWriteItemsCommand', () => namedError('Error', 'connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' })],
    ['a reset connection on the key lookup', 'GetItemCommand', () => namedError('Error', 'socket hang up', { code: 'ECONNRESET' })],
    ['a timeout on the lead write', 'TransactWriteItemsCommand', () => namedError('TimeoutError', 'socket timed out')],
    ['a 500 from DynamoDB', 'TransactWriteItemsCommand', () => namedError('InternalServerError', 'internal', { $metadata: { httpStatusCode: 500 } })],
  ])('answers 503 with Retry-After for %s, storing nothing', async (_, command, error) => {
    const { service, apiKey, faults } = await faultyService(command, error);
    const answer = await service.call('portala', { apiKey, body: validBody('portala', project) });
    faults.disarm();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ status: false, message: 'Service temporarily unavailable, please retry' });
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers['x-request-id']).toBeTruthy();
    expect(await service.repository.leadArchive.listLeads('acc-a', ['PRJ-1'])).toHaveLength(0);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });

  it('answers 503 when the repeated lead of a Merge cannot be written, after storing only the original', async () => {
    // The repeat's write is one BatchWriteItem with its person lookup items, after the cancelled claim.
    const faults = failFirst('BatchWriteItemCommand', 1, () => namedError('ThrottlingException'));
    const service = await testService({ instrument: (client) => injectFaults(client, faults.fault) });
    await service.seedAccount({ id: 'acc-a', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
    const apiKey = await service.issueKey('acc-a');
    const mobile = uniqueMobile();
    expect((await service.call('portala', { apiKey, body: validBody('portala', project, { mobile_number: mobile }) })).status).toBe(200);
    faults.arm();
    const answer = await service.call('portala', { apiKey, body: validBody('portala', project, { mobile_number: mobile }) });
    expect(faults.failures()).toBe(1);
    expect(answer.status).toBe(503);
    expect(await service.repository.leadArchive.listLeads('acc-a', ['PRJ-1'])).toHaveLength(1);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe('a write DynamoDB applied but whose answer was lost', () => {
  it.each([
    ['a new lead', 'TransactWriteItemsCommand', 1],
    // The repeat and its person lookup items are one BatchWriteItem.
    ['a repeated lead under Merge', 'BatchWriteItemCommand', 2],
  ])('answers 200 for %s, since the lead is stored', async (_, command, requests) => {
    const lost = failFirst(command, 1, () => namedError('TimeoutError', 'socket timed out after the request was sent'));
    const service = await testService({ instrument: (client) => injectFaults(client, lost.fault, 'after') });
    await service.seedAccount({ id: 'acc-a', duplicateSetting: 'merge', projects: { 'PRJ-1': ['CMP-1'] } });
    const apiKey = await service.issueKey('acc-a');
    const mobile = uniqueMobile();
    for (let i = 1; i < requests; i += 1) await service.call('portala', { apiKey, body: validBody('portala', project, { mobile_number: mobile }) });
    lost.arm();

    const answer = await service.call('portala', { apiKey, body: validBody('portala', project, { mobile_number: mobile }) });

    expect(lost.failures()).toBe(1);
    expect(answer.status).toBe(200);
    const stored = await service.repository.leadArchive.listLeads('acc-a', ['PRJ-1']);
    expect(stored.map((lead) => lead.id)).toContain(answer.body.data.id);
    expect(stored).toHaveLength(requests);
    expect(await service.repository.leadArchive.checkIntegrity()).toEqual([]);
  });
});

describe('an unexpected failure', () => {
  it.each(endpointNames)('answers 500 on %s with the request id and nothing internal', async (name) => {
    const { service, apiKey } = await faultyService('TransactWriteItemsCommand', () =>
      namedError('ValidationException', 'One or more parameter values were invalid: 9876543210 asha@example.com', { $metadata: { httpStatusCode: 400 } }),
    );
    const answer = await service.call(name, { apiKey, body: validBody(name, project, { mobile_number: '9876543210', email: 'asha@example.com' }) });
    const requestId = answer.headers['x-request-id'];
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ status: false, message: `Lead could not be created (request ${requestId})` });

    const line = JSON.stringify(service.logs.at(-1));
    expect(line).toContain('ValidationException');
    expect(line).not.toContain('9876543210');
    expect(line).not.toContain('asha@example.com');
  });
});

describe('the log line of a request', () => {
  let service: Awaited<ReturnType<typeof testService>>;
  let apiKey: string;
  beforeAll(async () => {
    service = await testService();
    await service.seedAccount({ id: 'acc-log', projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'] });
    apiKey = await service.issueKey('acc-log');
  });

  it('is one structured line with request id, endpoint, account, outcome, status and duration', async () => {
    const before = service.logs.length;
    const answer = await service.call('website', { apiKey, body: validBody('website', project, { mobile_number: '9876501234', email: 'asha@example.com' }) });
    expect(service.logs.length).toBe(before + 1);
    expect(service.logs.at(-1)).toMatchObject({
      requestId: answer.headers['x-request-id'],
      endpoint: 'website',
      accountId: 'acc-log',
      outcome: 'created',
      status: 200,
      leadId: answer.body.data.id,
    });
    // No part of the person's mobile or e-mail (CONTRACT.md section 14).
    expect(service.logs.at(-1)).not.toHaveProperty('mobile');
    expect(service.logs.at(-1)).not.toHaveProperty('email');
    expect(typeof service.logs.at(-1)!.durationMs).toBe('number');
  });

  it('names the reason of a refusal', async () => {
    await service.call('website', { apiKey, body: validBody('website', { projectID: 'PRJ-404', campaignID: 'CMP-1' }) });
    expect(service.logs.at(-1)).toMatchObject({ outcome: 'project_not_found', status: 422 });
  });

  it('never holds the API key, a full mobile number or a full e-mail', async () => {
    await service.call('website', { apiKey, body: validBody('website', project, { mobile_number: '9876505678', email: 'ravi@example.com', alternate_number: '8765409876' }) });
    await service.call('portala', { apiKey: `${apiKey}-wrong`, body: validBody('portala', project, { mobile_number: '9876505679' }) });
    const all = JSON.stringify(service.logs);
    expect(all).not.toContain(apiKey);
    for (const secret of ['9876505678', '9876505679', '8765409876', 'ravi@example.com']) expect(all).not.toContain(secret);
  });
});
