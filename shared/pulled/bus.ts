/** `Portal Failing` and `Portal Recovered` on section 9's bus (EventBridge), as the quiet-source watch's events go. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { PortalEventPublisher } from './pull.ts';

export const portalEventBus = (busName: string, client = new EventBridgeClient({})): PortalEventPublisher => ({
  publish: async (event) => {
    const { FailedEntryCount, Entries } = await client.send(
      new PutEventsCommand({ Entries: [{ EventBusName: busName, Source: 'crm.lead-intake', DetailType: event.detailType, Detail: JSON.stringify(event.detail) }] }),
    );
    if (FailedEntryCount) throw new Error(`the bus refused ${event.detailType}: ${Entries?.[0]?.ErrorCode ?? 'unknown error'}`);
  },
});

/** Section 9's local webhook (LEAD_EVENTS_WEBHOOK_URL), as npm start delivers every event: JSON `{"id", "source", "detail-type", "time", "detail"}`. */
export const portalEventWebhook = (url: string): PortalEventPublisher => ({
  publish: async (event) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: crypto.randomUUID(), source: 'crm.lead-intake', 'detail-type': event.detailType, time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), detail: event.detail }),
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) throw new Error(`the events webhook answered ${response.status}`);
  },
});
