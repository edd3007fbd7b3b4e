/**
 * Call numbers as configuration (CONTRACT.md sections 13 and 14), through the one domain module the
 * admin CLI, the admin API and the seed use, against DynamoDB Local: a number is its last 10 digits,
 * connected per account; connecting again moves it; a removed number is not found, and a seed never
 * connects it back.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  callNumberOf,
  connectCallNumber,
  listCallNumbers,
  removeCallNumber,
  seedCallNumber,
  CALL_NUMBER_CONNECTION,
  type CallNumberAdminDependencies,
} from '../../shared/calls/numbers.ts';
import { CallNumberNotFoundError, CallNumberTargetNotFoundError, InvalidCallNumberError } from '../../shared/calls/errors.ts';
import { KeyAccountNotFoundError } from '../../shared/domain/errors.ts';
import { ConnectionDirectory } from '../../shared/intake/connection-directory.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;
let admin: CallNumberAdminDependencies;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-calls', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
  await service.seedAccount({ id: 'acc-other', projects: { 'PRJ-1': ['CMP-1'] } });
  admin = { numbers: service.repository.connections(CALL_NUMBER_CONNECTION), accounts: service.repository.accounts };
});

describe('a number is its last 10 digits', () => {
  it.each([
    ['+91 80 4718 1234', '8047181234'],
    ['080-4718-1234', '8047181234'],
    ['8047181234', '8047181234'],
    ['0091 (80) 4718.1234', '8047181234'],
    ['+९१ ८०४७१८१२३४', '8047181234'],
  ])('reads %j as %s', (text, number) => {
    expect(callNumberOf(text)).toBe(number);
  });

  it.each(['140', '47181234', '', 'anonymous'])('reads %j as no number (fewer than 10 digits)', (text) => {
    expect(callNumberOf(text)).toBeUndefined();
  });
});

describe('connecting a number', () => {
  it('connects a new number to a project and campaign, listed with when it was connected', async () => {
    const { created, number } = await connectCallNumber(admin, { accountId: 'acc-calls', number: '+91 80 4000 0001', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(created).toBe(true);
    expect(number).toEqual({ number: '8040000001', project_id: 'PRJ-1', campaign_id: 'CMP-1', connected_at: expect.stringMatching(/Z$/) });
    expect(await listCallNumbers(admin, 'acc-calls')).toContainEqual(number);
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000001', 'acc-calls')).toMatchObject({ projectId: 'PRJ-1', campaignId: 'CMP-1' });
  });

  it('connecting it again (in another spelling) moves it to another project and keeps when it was first connected', async () => {
    const first = await connectCallNumber(admin, { accountId: 'acc-calls', number: '8040000002', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    const again = await connectCallNumber(admin, { accountId: 'acc-calls', number: '080-4000-0002', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(again).toEqual({ created: false, number: { ...first.number, project_id: 'PRJ-2', campaign_id: 'CMP-2' } });
    expect((await listCallNumbers(admin, 'acc-calls')).filter((n) => n.number === '8040000002')).toHaveLength(1);
  });

  it('keeps each account its own: another account connecting the same number changes nothing of the first', async () => {
    await connectCallNumber(admin, { accountId: 'acc-calls', number: '8040000003', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    await connectCallNumber(admin, { accountId: 'acc-other', number: '8040000003', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000003', 'acc-calls')).toMatchObject({ projectId: 'PRJ-2' });
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000003', 'acc-other')).toMatchObject({ projectId: 'PRJ-1' });
  });

  it.each([
    ['a number of fewer than 10 digits', { number: '4718123', projectId: 'PRJ-1', campaignId: 'CMP-1' }, InvalidCallNumberError],
    ['an unknown project', { number: '8040000004', projectId: 'PRJ-9', campaignId: 'CMP-1' }, CallNumberTargetNotFoundError],
    ['a campaign of another project', { number: '8040000004', projectId: 'PRJ-1', campaignId: 'CMP-2' }, CallNumberTargetNotFoundError],
  ])('refuses %s, connecting nothing', async (_case, input, refusal) => {
    await expect(connectCallNumber(admin, { accountId: 'acc-calls', ...input })).rejects.toBeInstanceOf(refusal);
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000004', 'acc-calls')).toBeUndefined();
  });

  it('refuses an unknown account', async () => {
    await expect(connectCallNumber(admin, { accountId: 'acc-none', number: '8040000005', projectId: 'PRJ-1', campaignId: 'CMP-1' })).rejects.toBeInstanceOf(
      KeyAccountNotFoundError,
    );
    await expect(listCallNumbers(admin, 'acc-none')).rejects.toBeInstanceOf(KeyAccountNotFoundError);
  });
});

describe('removing a number', () => {
  it('disconnects it: no longer found or listed; removing it again is refused', async () => {
    await connectCallNumber(admin, { accountId: 'acc-calls', number: '8040000010', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    await removeCallNumber(admin, 'acc-calls', '+91 8040000010');
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000010', 'acc-calls')).toBeUndefined();
    expect((await listCallNumbers(admin, 'acc-calls')).map((n) => n.number)).not.toContain('8040000010');
    await expect(removeCallNumber(admin, 'acc-calls', '8040000010')).rejects.toBeInstanceOf(CallNumberNotFoundError);
    await expect(removeCallNumber(admin, 'acc-calls', '8040009999')).rejects.toBeInstanceOf(CallNumberNotFoundError);
  });

  it('a seed applied again never connects a removed number back; connecting it by hand does, as new', async () => {
    const input = { accountId: 'acc-calls', number: '8040000011', projectId: 'PRJ-1', campaignId: 'CMP-1' };
    expect(await seedCallNumber(admin, input)).toBe('created');
    await removeCallNumber(admin, 'acc-calls', '8040000011');
    expect(await seedCallNumber(admin, input)).toBe('removed');
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000011', 'acc-calls')).toBeUndefined();
    expect((await connectCallNumber(admin, input)).created).toBe(true);
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000011', 'acc-calls')).toMatchObject({ projectId: 'PRJ-1' });
  });

  it('a seed adds a missing number and moves a connected one', async () => {
    expect(await seedCallNumber(admin, { accountId: 'acc-calls', number: '8040000012', projectId: 'PRJ-1', campaignId: 'CMP-1' })).toBe('created');
    expect(await seedCallNumber(admin, { accountId: 'acc-calls', number: '8040000012', projectId: 'PRJ-2', campaignId: 'CMP-2' })).toBe('changed');
    expect(await service.repository.connections(CALL_NUMBER_CONNECTION).findConnection('8040000012', 'acc-calls')).toMatchObject({ projectId: 'PRJ-2', campaignId: 'CMP-2' });
  });
});

describe("the webhook's read of numbers", () => {
  it('reads a connected number once per TTL, and a number not connected on every call (so a new one works at once)', async () => {
    let reads = 0;
    const reader = { findConnection: (number: string, accountId?: string) => (reads++, service.repository.connections(CALL_NUMBER_CONNECTION).findConnection(number, accountId)) };
    const directory = new ConnectionDirectory(reader, { ttlMs: 60_000 });
    await connectCallNumber(admin, { accountId: 'acc-calls', number: '8040000020', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await directory.find('8040000020', 'acc-calls')).toMatchObject({ projectId: 'PRJ-1' });
    expect(await directory.find('8040000020', 'acc-calls')).toMatchObject({ projectId: 'PRJ-1' });
    expect(reads).toBe(1);
    expect(await directory.find('8040000021', 'acc-calls')).toBeUndefined();
    await connectCallNumber(admin, { accountId: 'acc-calls', number: '8040000021', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(await directory.find('8040000021', 'acc-calls')).toMatchObject({ projectId: 'PRJ-2' });
    expect(reads).toBe(3);
  });
});
