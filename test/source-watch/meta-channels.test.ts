/**
 * Meta's leads on the quiet-source watch (CONTRACT.md section 16): each page is a channel of its own
 * (`connection_id` the page id), from signed notifications through the worker, and the page id, kept
 * with the stored lead for that, stays out of the lead record (section 8) and its Lead Created event.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLeadStreamReader, type DeliveredEvent, type LeadStreamReader } from '../../scripts/local/lead-events.ts';
import { channelRows } from '../../shared/domain/channel-watch.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { countedLeadOf } from '../../shared/dynamodb/lead-stream.ts';
import { channelConnectionFields } from '../../shared/sources/registry.ts';
import { channelWatch, sourceWatchHandler } from '../../shared/source-watch.ts';
import { asFunction } from '../support/aws-calls.ts';
import { fieldData, leadgenNotification } from '../support/fake-graph.ts';
import { metaTestService, type MetaTestService } from '../support/meta-service.ts';
import { waitFor } from '../support/processes.ts';
import { uniqueMobile } from '../support/service.ts';

const settings = { minLeads: 3, minMinutes: 60, quietHours: null };
const ACCOUNT = 'acc-meta-watch';
const PAGES = { '21': 'EAAB-token-page-21', '22': 'EAAB-token-page-22' } as const;
const FORM = '3101';
let meta: MetaTestService;
let reader: LeadStreamReader;
const counted = new Set<string>();
const created: DeliveredEvent[] = [];
let sequence = 8_100_000;

beforeAll(async () => {
  meta = await metaTestService();
  await meta.seedAccount({ id: ACCOUNT, projects: { 'PRJ-1': ['CMP-1'] }, social: ['fb', 'ig'] });
  for (const [page, token] of Object.entries(PAGES)) await meta.connectPage(ACCOUNT, page, token, { [FORM]: { projectID: 'PRJ-1', campaignID: 'CMP-1' } });
  const watch = channelWatch({ db: createDocumentClient({ client: meta.client }), leadsTable: meta.tables.leads, events: { publish: async () => undefined }, settings });
  const handler = sourceWatchHandler({ watch, connectionFields: channelConnectionFields, write: () => undefined });
  reader = await startLeadStreamReader({
    dynamodb: meta.client,
    endpoint: process.env.TEST_DYNAMODB_ENDPOINT!,
    leadsTable: meta.tables.leads,
    onEvent: (event) => void created.push(event),
    onRecords: async (records) => {
      await asFunction('source-watch', () => handler({ Records: records.map((record) => ({ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: '1' } })) }));
      for (const record of records) {
        const lead = countedLeadOf(record, channelConnectionFields);
        if (lead) counted.add(lead.leadId);
      }
    },
    pollIntervalMs: 50,
  });
}, 30_000);

afterAll(async () => {
  await reader?.stop();
  meta.queue.stop();
  await meta.graph.close();
});

/** One lead through a page: Graph serves it, Meta notifies, the worker stores it, the watch counts it. */
const leadThrough = async (page: keyof typeof PAGES) => {
  const leadgenId = String((sequence += 1));
  meta.graph.serve(leadgenId, PAGES[page], { platform: 'fb', form_id: FORM, field_data: fieldData({ full_name: 'Asha Verma', phone_number: uniqueMobile() }) });
  expect((await meta.notify(leadgenNotification([{ pageId: page, leadgenId, formId: FORM }]))).status).toBe(200);
  await meta.queue.idle();
  const [stored] = (await meta.leadsOf(ACCOUNT)).filter((lead) => lead.meta_leadgen_id === leadgenId);
  await waitFor(() => counted.has(stored!.id), `Meta lead ${stored!.id} counted`, 10_000);
  return stored!;
};

describe("Meta's leads", () => {
  it('are a channel per page, its id the connection id, apart from the social endpoint’s leads', async () => {
    const first = await leadThrough('21');
    await leadThrough('21');
    await leadThrough('22');
    const rows = await channelRows({ store: meta.repository.channels, settings, now: () => new Date() }, ACCOUNT);
    expect(rows.map((row) => [row.source, row.sub_source, row.connection_id, row.leads_14d]).sort()).toEqual([
      ['social', 'fb', '21', 2],
      ['social', 'fb', '22', 1],
    ]);
    // The page id is the watch's alone: not in the stored record, nor in its Lead Created event.
    expect(first).not.toHaveProperty('meta_page_id');
    await waitFor(() => created.some((event) => 'lead' in event.detail && event.detail.lead.id === first.id), 'its Lead Created event', 10_000);
    const event = created.find((e) => 'lead' in e.detail && e.detail.lead.id === first.id)!;
    expect(event.detail).toEqual({ account_id: ACCOUNT, lead: first });
  });
});
