/**
 * Section 4: does a new lead get slower as leads pile up? On tables of its own, one account with an
 * empty project, a hot project and 1,000 more: p50 of a new lead while the table is empty, then
 * after loading N leads into the hot project and N more spread over the 1,000 projects, for the empty,
 * the hot and a random spread project, interleaved.
 *
 * The preloaded items are the repository's own: each lead goes through DynamoDbRepository.insertOriginal
 * on a client whose middleware takes the marshalled TransactWriteItems and answers it unsent; its items
 * (claim and lead) are then written 24 to a BatchWriteItem, several batches in flight.
 */
import { BatchWriteItemCommand, DynamoDBClient, type TransactWriteItemsCommandInput, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { newLeadId } from '../shared/domain/lead-id.ts';
import type { LeadRecord } from '../shared/domain/lead.ts';
import { createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { DynamoDbRepository } from '../shared/dynamodb/repository.ts';
import { benchService, captureRequests, invoke, leadBody } from './service.ts';
import { ratio, round, summarize, timed, type Summary } from './stats.ts';

export interface ScaleResult {
  readonly preloadPerLayout: number;
  readonly spreadProjects: number;
  readonly preloadSeconds: number;
  readonly preloadItemsPerSecond: number;
  readonly emptyTable: Summary;
  readonly emptyProject: Summary;
  readonly hotProject: Summary;
  readonly spreadProject: Summary;
  readonly hotOverEmpty: number;
  readonly spreadOverEmpty: number;
  readonly emptyProjectAfterOverEmptyTable: number;
  readonly errors: number;
}

const ACCOUNT = 'acc-scale';
const EMPTY = 'P-EMPTY';
const HOT = 'P-HOT';
const spreadProject = (i: number) => `P-${String(i).padStart(4, '0')}`;
const campaignOf = (project: string) => `C-${project}`;

export const measureScale = async (
  endpoint: string,
  { preload, projects, samples, warmup, batchesInFlight = 8, onProgress }: { preload: number; projects: number; samples: number; warmup: number; batchesInFlight?: number; onProgress?: (text: string) => void },
): Promise<ScaleResult> => {
  const service = await benchService(endpoint, `scale${Date.now() % 1e6}_`);
  const projectIds = [EMPTY, HOT, ...Array.from({ length: projects }, (_, i) => spreadProject(i))];
  const apiKey = await service.seedAccount({ id: ACCOUNT, projects: Object.fromEntries(projectIds.map((p) => [p, [campaignOf(p)]])) });
  const handler = service.handler('website', service.newRuntime());
  let errors = 0;
  const post = (project: string) => async () => {
    const { status } = await invoke(handler, 'website', apiKey, leadBody('website', project, campaignOf(project)));
    if (status !== 200) errors += 1;
  };

  const sample = async (targets: Record<string, () => string>): Promise<Record<string, number[]>> => {
    const names = Object.keys(targets);
    const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < warmup + samples; i += 1) {
      for (let k = 0; k < names.length; k += 1) {
        const name = names[(i + k) % names.length]!;
        const [ms] = await timed(post(targets[name]!()));
        if (i >= warmup) out[name]!.push(ms);
      }
    }
    return out;
  };

  const before = await sample({ emptyTable: () => EMPTY });

  // ---- preload -------------------------------------------------------------------------------
  const captureClient = createDynamoDbClient({ endpoint });
  const capture = captureRequests(captureClient, { skip: true });
  capture.arm('TransactWriteItemsCommand');
  const shaper = new DynamoDbRepository(createDocumentClient({ client: captureClient }), service.tables);
  const createdAt = new Date().toISOString();
  async function* repositoryItems(): AsyncGenerator<WriteRequest> {
    for (let n = 0; n < 2 * preload; n += 1) {
      const projectID = n < preload ? HOT : spreadProject(n % projects);
      const lead: LeadRecord = {
        id: newLeadId(),
        name: 'Preloaded Lead',
        mobile_number: `8${String(n).padStart(9, '0')}`,
        projectID,
        campaignID: campaignOf(projectID),
        source: 'website',
        sub_source: 'Bench landing page',
        is_repeated: false,
        parent_lead_id: null,
        created_at: createdAt,
      };
      await shaper.leads.insertOriginal(ACCOUNT, lead);
      const input = capture.take<TransactWriteItemsCommandInput>();
      for (const item of input.TransactItems ?? []) yield { PutRequest: { Item: item.Put!.Item! } };
    }
  }
  const items = repositoryItems();
  // Not the service's client: bulk writes on a loaded DynamoDB Local may take longer than its 3 s request timeout.
  const writer = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 10 });
  let written = 0;
  const started = performance.now();
  const worker = async () => {
    for (;;) {
      const batch: WriteRequest[] = [];
      while (batch.length < 24) {
        const next = await items.next();
        if (next.done) break;
        batch.push(next.value);
      }
      if (batch.length === 0) return;
      let pending: WriteRequest[] | undefined = batch;
      for (let attempt = 0; pending?.length; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 10 * 2 ** attempt)));
        const { UnprocessedItems }: { UnprocessedItems?: Record<string, WriteRequest[]> } = await writer.send(new BatchWriteItemCommand({ RequestItems: { [service.tables.leads]: pending } }));
        pending = UnprocessedItems?.[service.tables.leads];
      }
      written += batch.length;
      if (written % 48_000 < 24) onProgress?.(`preloaded ${written.toLocaleString('en')} of ${(4 * preload).toLocaleString('en')} items`);
    }
  };
  await Promise.all(Array.from({ length: batchesInFlight }, worker));
  const preloadSeconds = (performance.now() - started) / 1000;

  let spread = 0;
  const after = await sample({
    emptyProject: () => EMPTY,
    hotProject: () => HOT,
    spreadProject: () => spreadProject(spread++ % projects),
  });
  const [emptyTable, emptyProject, hotProject, spreadSummary] = [
    summarize(before.emptyTable!),
    summarize(after.emptyProject!),
    summarize(after.hotProject!),
    summarize(after.spreadProject!),
  ];
  return {
    preloadPerLayout: preload,
    spreadProjects: projects,
    preloadSeconds: round(preloadSeconds, 1),
    preloadItemsPerSecond: Math.round(written / preloadSeconds),
    emptyTable,
    emptyProject,
    hotProject,
    spreadProject: spreadSummary,
    hotOverEmpty: ratio(hotProject.p50, emptyProject.p50),
    spreadOverEmpty: ratio(spreadSummary.p50, emptyProject.p50),
    emptyProjectAfterOverEmptyTable: ratio(emptyProject.p50, emptyTable.p50),
    errors,
  };
};
