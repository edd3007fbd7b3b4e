/**
 * The quiet-source watch's wiring (CONTRACT.md section 16): its settings from the environment (the
 * stack's `silence*` settings, or npm start's SILENCE_* variables), the bus its events go on, and the
 * one function that both counts the Leads stream's new leads and runs the scheduled check.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ChannelWatch, type CheckSummary } from './domain/channel-watch.ts';
import type { SilenceSettings, SourceEventPublisher } from './domain/source-watch.ts';
import { DynamoDbAccountReader } from './dynamodb/accounts.ts';
import { DynamoDbChannelStore } from './dynamodb/channels.ts';
import { countedLeadOf, type ChannelConnectionFields, type LeadStreamRecord } from './dynamodb/lead-stream.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from './metric-names.ts';
import { SILENT_CHANNELS_METRIC } from './source-watch-settings.ts';

export * from './source-watch-settings.ts';

/** Section 9's bus: one PutEvents per event, refused entries thrown (the caller retries or gives the silence back). */
export const eventBridgePublisher = (busName: string, client = new EventBridgeClient({})): SourceEventPublisher => ({
  publish: async (event) => {
    const { FailedEntryCount, Entries } = await client.send(
      new PutEventsCommand({ Entries: [{ EventBusName: busName, Source: 'crm.lead-intake', DetailType: event.detailType, Detail: JSON.stringify(event.detail) }] }),
    );
    if (FailedEntryCount) throw new Error(`the bus refused ${event.detailType}: ${Entries?.[0]?.ErrorCode ?? 'unknown error'}`);
  },
});

export interface SourceWatchParts {
  readonly db: DynamoDBDocumentClient;
  readonly leadsTable: string;
  /** Where the accounts' own quiet hours are (the Config table); without it, the settings' for every account. */
  readonly configTable?: string;
  readonly events: SourceEventPublisher;
  readonly settings: SilenceSettings;
  readonly now?: () => Date;
  readonly onFailure?: (error: unknown) => void;
}

export const channelWatch = ({ db, leadsTable, configTable, events, settings, now = () => new Date(), onFailure }: SourceWatchParts): ChannelWatch => {
  const accounts = configTable === undefined ? undefined : new DynamoDbAccountReader(db, configTable);
  return new ChannelWatch({
    store: new DynamoDbChannelStore(db, leadsTable),
    events,
    settings,
    now,
    ...(accounts && { accountQuietHours: async (accountId: string) => (await accounts.loadAccount(accountId))?.silenceQuietHours }),
    ...(onFailure && { onFailure: (error) => onFailure(error) }),
  });
};

/**
 * Counts the stored leads among stream records (anything else is passed by), each channel once; the
 * first record whose lead was not counted, or undefined when all were.
 */
export const countStreamRecords = async (
  watch: ChannelWatch,
  records: readonly LeadStreamRecord[],
  connectionFields: ChannelConnectionFields,
): Promise<{ readonly record: number; readonly error: unknown } | undefined> => {
  const leads = records.map((record) => countedLeadOf(record, connectionFields));
  const failures = await watch.count(leads.flatMap((lead) => lead ?? []));
  if (failures.length === 0) return undefined;
  const failed = new Set(failures.flatMap((failure) => failure.leads));
  return { record: leads.findIndex((lead) => lead !== undefined && failed.has(lead)), error: failures[0]!.error };
};

/** The check's metric as EMF lines: each account's silent channels, and the same under `Service` for the alarm. */
export const silentChannelMetrics = (summary: CheckSummary, at: Date): string[] =>
  [...summary.silentByAccount].map(([accountId, silent]) =>
    JSON.stringify({
      _aws: {
        Timestamp: at.getTime(),
        CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['AccountId'], ['Service']], Metrics: [{ Name: SILENT_CHANNELS_METRIC, Unit: 'Count' }] }],
      },
      AccountId: accountId,
      Service: SERVICE_NAME,
      [SILENT_CHANNELS_METRIC]: silent,
    }),
  );

/** A DynamoDB stream batch as Lambda hands it on (only what is read here). */
export interface StreamBatch {
  readonly Records: ReadonlyArray<LeadStreamRecord & { readonly dynamodb?: { readonly SequenceNumber?: string } }>;
}

export interface SourceWatchHandlerParts {
  readonly watch: ChannelWatch;
  readonly connectionFields: ChannelConnectionFields;
  readonly write?: (line: string) => void;
  readonly now?: () => Date;
}

/**
 * The watch's one function: a stream batch is counted a channel at a time, one write each (a failure
 * reports the first record not counted, which Lambda hands on again with those after it: counting is
 * idempotent); anything else is the schedule's tick, and runs one check.
 */
export const sourceWatchHandler = ({ watch, connectionFields, write = (line) => void process.stdout.write(`${line}\n`), now = () => new Date() }: SourceWatchHandlerParts) =>
  async (event: StreamBatch | Record<string, unknown>): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> } | CheckSummaryLine> => {
    if (Array.isArray((event as StreamBatch).Records)) {
      const records = (event as StreamBatch).Records;
      const failed = await countStreamRecords(watch, records, connectionFields);
      if (failed) {
        write(JSON.stringify({ level: 'ERROR', message: 'lead not counted', service: SERVICE_NAME, error: (failed.error as Error).name }));
        // Lambda hands on again from the first record reported.
        return { batchItemFailures: [{ itemIdentifier: String(records[failed.record]!.dynamodb?.SequenceNumber) }] };
      }
      return { batchItemFailures: [] };
    }
    const summary = await watch.check();
    for (const line of silentChannelMetrics(summary, now())) write(line);
    const line: CheckSummaryLine = {
      level: summary.failures ? 'ERROR' : 'INFO',
      message: 'source watch checked',
      service: SERVICE_NAME,
      accounts: summary.silentByAccount.size,
      silent: [...summary.silentByAccount.values()].reduce((a, b) => a + b, 0),
      events_sent: summary.eventsSent,
      failures: summary.failures,
    };
    write(JSON.stringify(line));
    return line;
  };

/** The check's log line (accounts, counts: never a lead). */
export interface CheckSummaryLine {
  readonly level: string;
  readonly message: string;
  readonly service: string;
  readonly accounts: number;
  readonly silent: number;
  readonly events_sent: number;
  readonly failures: number;
}
