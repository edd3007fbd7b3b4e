/**
 * Where a request's log line goes in Lambda: one JSON line on stdout, shaped like Powertools Logger's
 * (level, message, timestamp, service, X-Ray trace id), and, from the same line, Powertools Metrics in
 * CloudWatch's embedded metric format: leads created, repeated and replayed, and refusals by reason,
 * per source; and cold starts. The line is already masked (see log.ts).
 *
 * Why not Powertools Logger itself: it adds 16.7 KB to each minified bundle (measured with esbuild's
 * metafile), which breaks the 250 KB cold-start budget of docs/performance.md, to write the same line.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logLineSink, type LogSink } from './log.ts';
import { leadMetrics, METRICS_NAMESPACE, SERVICE_NAME } from './metric-names.ts';

/** The metric a request's outcome counts in; refusals carry their reason as a dimension. */
const metricOf = (line: Readonly<Record<string, unknown>>): { name: string; reason?: string } | undefined => {
  switch (line.outcome) {
    case 'created':
      return { name: leadMetrics.created };
    case 'repeated':
      return { name: leadMetrics.repeated };
    case 'idempotent_replay':
      return { name: leadMetrics.replayed };
    case 'dry_run':
    case 'preflight':
    // The Meta webhook's acknowledgements: its leads are counted when the worker creates them.
    case 'notification_received':
    case 'verified':
    case undefined:
      return undefined;
    default:
      return typeof line.status === 'number' && line.status >= 500
        ? { name: leadMetrics.failed, reason: String(line.outcome) }
        : { name: leadMetrics.rejected, reason: String(line.outcome) };
  }
};

export interface TelemetryParts {
  readonly metrics?: Metrics;
  readonly write?: (text: string) => void;
  readonly now?: () => Date;
}

export const telemetrySink = ({
  metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }),
  write = (text) => void process.stdout.write(`${text}\n`),
  now = () => new Date(),
}: TelemetryParts = {}): LogSink => {
  let coldStart = true;
  const logLine = logLineSink({ write, now });
  return (line) => {
    logLine(line);

    // Only request lines (they have an endpoint and a status) count in the metrics.
    if (typeof line.endpoint !== 'string' || typeof line.status !== 'number') return;
    if (coldStart) {
      coldStart = false;
      metrics.captureColdStartMetric();
    }
    const metric = metricOf(line);
    if (!metric) return;
    metrics.addDimension('source', line.endpoint);
    if (metric.reason) metrics.addDimension('reason', metric.reason);
    metrics.addMetric(metric.name, MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  };
};
