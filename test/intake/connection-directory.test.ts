/**
 * The intake's one connection directory (shared/intake/connection-directory.ts), for every kind, and
 * its keyed form for a kind whose deliveries carry the connection's key (Google's forms), against
 * DynamoDB Local: a found connection is read once per TTL (no read warm), one not found is read on every
 * delivery (a new one works at once), a wrong key re-reads once, and an unknown connection, a wrong key
 * and a missing key are all simply not found.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callNumberConnections } from '../../shared/calls/connections.ts';
import { connectCallNumber } from '../support/call-service.ts';
import { googleFormConnections } from '../../shared/google/connections.ts';
import { connectGoogleForm, rotateGoogleFormKey } from '../support/google-service.ts';
import type { ConnectionReader } from '../../shared/domain/ports/connections.ts';
import { ConnectionDirectory } from '../../shared/intake/connection-directory.ts';
import { KeyedConnectionDirectory } from '../../shared/intake/keyed-connection-directory.ts';
import { testService, type TestService } from '../support/service.ts';

let service: TestService;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({ id: 'acc-directory', projects: { 'PRJ-1': ['CMP-1'], 'PRJ-2': ['CMP-2'] } });
});

/** A reader of the store that counts its reads. */
const counted = (reader: ConnectionReader) => {
  const reads = { count: 0 };
  return { reads, reader: { findConnection: (id: string, accountId?: string) => (reads.count++, reader.findConnection(id, accountId)) } };
};

describe('a kind each account connects on its own (call numbers)', () => {
  it('reads a connection once per TTL, under its account, and forgets it when told', async () => {
    const { reads, reader } = counted(service.repository.connections(callNumberConnections));
    const directory = new ConnectionDirectory(reader, { ttlMs: 60_000 });
    await connectCallNumber({ connections: service.repository.connections(callNumberConnections), accounts: service.repository.accounts }, { accountId: 'acc-directory', number: '8041000001', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await directory.lookup({ id: '8041000001', accountId: 'acc-directory' })).toMatchObject({ projectId: 'PRJ-1' });
    expect(await directory.lookup({ id: '8041000001', accountId: 'acc-directory' })).toMatchObject({ projectId: 'PRJ-1' });
    expect(reads.count).toBe(1);
    expect(await directory.lookup({ id: '8041000001', accountId: 'acc-other' })).toBeUndefined();
    directory.forget('8041000001', 'acc-directory');
    await directory.lookup({ id: '8041000001', accountId: 'acc-directory' });
    expect(reads.count).toBe(3);
  });
});

describe('a kind whose deliveries carry its key (Google forms)', () => {
  const formAdmin = () => ({ connections: service.repository.connections(googleFormConnections), accounts: service.repository.accounts });

  it('finds the form with its key, once per TTL, and with no other key', async () => {
    const { reads, reader } = counted(service.repository.connections(googleFormConnections));
    const directory = new KeyedConnectionDirectory(reader, { ttlMs: 60_000 });
    const { form } = await connectGoogleForm(formAdmin(), { accountId: 'acc-directory', formId: '71000000001', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await directory.lookup({ id: '71000000001', presentedKey: form.key! })).toMatchObject({ accountId: 'acc-directory', projectId: 'PRJ-1' });
    expect(await directory.lookup({ id: '71000000001', presentedKey: form.key! })).toMatchObject({ projectId: 'PRJ-1' });
    expect(reads.count).toBe(1);
    // A wrong key re-reads the form once (its key may have just been rotated), and is refused.
    expect(await directory.lookup({ id: '71000000001', presentedKey: `${form.key!}x` })).toBeUndefined();
    expect(reads.count).toBe(2);
    expect(await directory.lookup({ id: '71000000001' })).toBeUndefined();
    expect(reads.count).toBe(2);
  });

  it('takes a rotated key at the next delivery, though the old one is cached', async () => {
    const directory = new KeyedConnectionDirectory(service.repository.connections(googleFormConnections), { ttlMs: 60_000 });
    const { form } = await connectGoogleForm(formAdmin(), { accountId: 'acc-directory', formId: '71000000002', projectId: 'PRJ-1', campaignId: 'CMP-1' });
    expect(await directory.lookup({ id: '71000000002', presentedKey: form.key! })).toBeDefined();
    const rotated = await rotateGoogleFormKey(formAdmin(), '71000000002');
    expect(await directory.lookup({ id: '71000000002', presentedKey: rotated.key! })).toMatchObject({ projectId: 'PRJ-1' });
  });

  it('reads an unknown form on every delivery, so a form connected a moment ago works at once', async () => {
    const { reads, reader } = counted(service.repository.connections(googleFormConnections));
    const directory = new KeyedConnectionDirectory(reader, { ttlMs: 60_000 });
    expect(await directory.lookup({ id: '71000000003', presentedKey: 'gk_anything' })).toBeUndefined();
    const { form } = await connectGoogleForm(formAdmin(), { accountId: 'acc-directory', formId: '71000000003', projectId: 'PRJ-2', campaignId: 'CMP-2' });
    expect(await directory.lookup({ id: '71000000003', presentedKey: form.key! })).toMatchObject({ projectId: 'PRJ-2' });
    expect(reads.count).toBe(2);
  });
});
