import { AccountAdmin } from '../../shared/domain/account-admin.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashApiKey } from '../../shared/domain/account-directory.ts';
import { createDocumentClient, createDynamoDbClient } from '../../shared/dynamodb/client.ts';
import { createTables } from '../../shared/dynamodb/create-tables.ts';
import { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { websiteEndpoint } from '../../shared/endpoints.ts';
import { leadHandler } from '../../shared/http/lead-handler.ts';
import { leadRuntime } from '../../shared/runtime.ts';
import { createLocalServer } from '../../scripts/local/http-server.ts';
import { startDynamoDbLocal, type RunningDynamoDbLocal } from '../../scripts/dynamodb-local.ts';
import { uniqueMobile } from '../support/service.ts';

/**
 * The database goes away in the middle of a load through the local HTTP server, and comes back. The
 * service talks to DynamoDB Local through a TCP relay: cutting the relay is the outage as the service
 * sees it (reset connections, refused connections), and while it is cut DynamoDB Local itself is
 * stopped and started again. The server is never restarted.
 *
 * The senders behave as the reliability doc asks: each lead carries an Idempotency-Key, and a 503 is
 * retried with the same key and body. So the exact guarantee can be asserted: every lead is stored
 * once, none twice, and every 200 names a stored lead.
 *
 * Why a relay, and a pause before the emulator is stopped: DynamoDB Local is an emulator over SQLite,
 * and stopped with requests in flight it lost a write it had already acknowledged (seen with SIGKILL
 * and with SIGTERM). DynamoDB acknowledges only durable writes; this suite tests the service.
 */
let dataDir: string;
let dynamo: RunningDynamoDbLocal;
let relay: Relay;
let server: Server;
let baseUrl: string;
let repository: DynamoDbRepository;
const logs: Record<string, unknown>[] = [];

interface Relay {
  readonly endpoint: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

/** A TCP relay to the database that can be cut (every connection reset, new ones refused) and restored. */
const startRelay = async (target: () => number): Promise<Relay> => {
  const sockets = new Set<Socket>();
  const relayServer = createServer((client) => {
    const upstream = connect(target(), '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
  const { port } = relayServer.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut: async () => {
      const closed = new Promise<void>((resolve) => relayServer.close(() => resolve()));
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    },
    restore: () => new Promise<void>((resolve) => relayServer.listen(port, '127.0.0.1', resolve)),
  };
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'lead-intake-loss-'));
  dynamo = await startDynamoDbLocal({ dataDir });
  relay = await startRelay(() => dynamo.port);
  const client = createDynamoDbClient({ endpoint: relay.endpoint });
  const tables = await createTables(client, 'loss_');
  repository = new DynamoDbRepository(createDocumentClient({ client }), tables);
  await new AccountAdmin(repository.accounts).configure({
    id: 'acc-loss',
    name: 'Loss',
    duplicateSetting: 'create',
    projects: new Map([['PRJ-1', { id: 'PRJ-1', name: 'P' }]]),
    campaigns: new Map([['CMP-1', { id: 'CMP-1', projectId: 'PRJ-1', name: 'C' }]]),
    websiteSubSources: new Set(['Skyline landing page']),
    socialSubSources: new Set(),
  });
  await repository.keys.saveApiKey(hashApiKey('loss-key'), { accountId: 'acc-loss', active: true });
  const runtime = leadRuntime({ stores: repository, configCacheTtlSeconds: 30, corsAllowedOrigins: ['*'], log: (line) => logs.push({ ...line }) });
  const website = leadHandler(websiteEndpoint, runtime);
  server = createLocalServer({ handlers: { website, portala: website, portalb: website, social: website } });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await relay?.cut().catch(() => undefined);
  await dynamo?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly leadId?: string;
}

const post = async (body: string, idempotencyKey: string): Promise<Answer> => {
  const response = await fetch(`${baseUrl}/api/website-lead-create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'loss-key', 'idempotency-key': idempotencyKey },
    body,
  });
  const answer = (await response.json()) as { data?: { id: string } };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), ...(answer.data && { leadId: answer.data.id }) };
};

describe('losing the database in the middle of a load', () => {
  it('answers every request 200 or 503, and a sender retrying its 503s loses no lead and doubles none', async () => {
    const answers: Answer[] = [];
    const sent: string[] = [];
    let stop = false;
    /** A well-behaved sender: one key per lead, a 503 retried with the same key and body. */
    const sender = async () => {
      while (!stop) {
        const mobile = uniqueMobile();
        const body = JSON.stringify({ name: 'Loss Lead', mobile_number: mobile, projectID: 'PRJ-1', campaignID: 'CMP-1', sub_source: 'Skyline landing page' });
        sent.push(mobile);
        for (;;) {
          const answer = await post(body, `lead-${mobile}`);
          answers.push(answer);
          if (answer.status !== 503) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const senders = Array.from({ length: 8 }, sender);
    const accepted = () => answers.filter((a) => a.status === 200).length;
    const waitFor = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
    };

    await waitFor(() => accepted() >= 40);
    await relay.cut();
    const outageStart = answers.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await dynamo.stop();
    dynamo = await startDynamoDbLocal({ dataDir, port: dynamo.port });
    const outageEnd = answers.length;
    await relay.restore();
    const acceptedBefore = accepted();
    await waitFor(() => accepted() >= acceptedBefore + 40);
    stop = true;
    await Promise.all(senders);

    expect(outageEnd).toBeGreaterThan(outageStart);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    expect(answers.filter((a) => a.status === 503 && a.retryAfter !== '1')).toEqual([]);
    expect(answers.slice(outageStart, outageEnd).some((a) => a.status === 503)).toBe(true);

    const stored = await repository.leadArchive.listLeads('acc-loss', ['PRJ-1']);
    expect(stored.map((lead) => lead.mobile_number).sort()).toEqual([...sent].sort());
    const storedIds = new Set(stored.map((lead) => lead.id));
    expect(answers.filter((a) => a.status === 200 && !storedIds.has(a.leadId!))).toEqual([]);
    expect(await repository.leadArchive.checkIntegrity()).toEqual([]);
  }, 90_000);
});
