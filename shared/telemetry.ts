/**
 * Where a request's log line goes in Lambda: one JSON line on stdout, shaped like Powertools Logger's
 * (level, message, timestamp, service, X-Ray trace id), and, from the same line, metrics in CloudWatch's
 * embedded metric format (EMF): leads created, repeated and replayed, and refusals and failures by
 * reason, per source; and cold starts. The line is already masked (see log.ts).
 *
 * Why not Powertools Logger and Metrics themselves: each adds 13 to 17 KB to every minified bundle
 * (measured with esbuild's metafile) to write what is one JSON line, and the lead functions must stay
 * inside the 250 KB cold-start budget of docs/performance.md. The EMF lines are the same shape
 * Powertools Metrics writes, and its switch is honoured: POWERTOOLS_METRICS_DISABLED=true turns them off.
 */
import { logLineFormatter, type LogSettings, type LogSink } from './log.ts';
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

/**
 * One count of one metric as an EMF line: CloudWatch Logs turns it into a data point of the metric
 * under exactly these dimensions (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 */
export const embeddedMetric = (name: string, dimensions: Readonly<Record<string, string>>, at: Date): string =>
  JSON.stringify({
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [Object.keys(dimensions)], Metrics: [{ Name: name, Unit: 'Count' }] }],
    },
    ...dimensions,
    [name]: 1,
  });

export interface TelemetryParts {
  readonly write?: (text: string) => void;
  readonly now?: () => Date;
  /** Embedded metrics on (the default in Lambda) or off (`npm start`, through the environment). */
  readonly metrics?: boolean;
  /** The function the cold start is counted for (Lambda's AWS_LAMBDA_FUNCTION_NAME). */
  readonly functionName?: string;
  /** Log level and debug sampling (default: from the environment, see log.ts); metrics ignore them. */
  readonly logSettings?: LogSettings;
  readonly random?: () => number;
}

export const telemetrySink = ({
  write = (text) => void process.stdout.write(`${text}\n`),
  now = () => new Date(),
  metrics = process.env.POWERTOOLS_METRICS_DISABLED?.toLowerCase() !== 'true',
  functionName = process.env.AWS_LAMBDA_FUNCTION_NAME,
  logSettings,
  random,
}: TelemetryParts = {}): LogSink => {
  let coldStart = true;
  const logLine = logLineFormatter({ now, functionName, ...(logSettings && { settings: logSettings }), ...(random && { random }) });
  return (line) => {
    const lines: string[] = [];
    const text = logLine(line);
    if (text !== undefined) lines.push(text);

    // Only request lines (they have an endpoint and a status) count in the metrics, whatever the log level.
    if (metrics && typeof line.endpoint === 'string' && typeof line.status === 'number') {
      if (coldStart) {
        coldStart = false;
        lines.push(embeddedMetric('ColdStart', { service: SERVICE_NAME, ...(functionName && { function_name: functionName }) }, now()));
      }
      const metric = metricOf(line);
      if (metric) lines.push(embeddedMetric(metric.name, { service: SERVICE_NAME, source: line.endpoint, ...(metric.reason && { reason: metric.reason }) }, now()));
    }
    // One write (one system call on stdout) for the request's lines; CloudWatch still reads each line as its own event.
    if (lines.length > 0) write(lines.join('\n'));
  };
};
