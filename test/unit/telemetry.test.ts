import { describe, expect, it } from '@jest/globals';
import type { LogSettings } from '../../shared/log.ts';
import { telemetrySink } from '../../shared/telemetry.ts';

const AT = new Date('2026-11-22T00:00:00Z');

/** A sink whose every written line is kept, parsed. */
const captured = (parts: { metrics?: boolean; functionName?: string; logSettings?: LogSettings } = {}) => {
  const lines: Record<string, any>[] = [];
  const sink = telemetrySink({ metrics: true, ...parts, write: (text) => lines.push(...text.split('\n').map((line) => JSON.parse(line))), now: () => AT });
  const emf = () => lines.filter((line) => line._aws !== undefined);
  return { sink, lines, emf };
};

/** Each EMF line as the metric, value and dimensions CloudWatch reads from it. */
const dataPoints = (emf: Record<string, any>[]) =>
  emf.map((line) => {
    const { Namespace, Dimensions, Metrics } = line._aws.CloudWatchMetrics[0];
    const name = Metrics[0].Name as string;
    return { namespace: Namespace, name, unit: Metrics[0].Unit, value: line[name], dimensions: Object.fromEntries((Dimensions[0] as string[]).map((d) => [d, line[d]])) };
  });

describe('request telemetry', () => {
  it('writes one JSON log line per request with level, message, timestamp and service', () => {
    const { sink, lines } = captured({ metrics: false });
    sink({ level: 'info', requestId: 'r1', endpoint: 'website', outcome: 'created', status: 200, mobile: '******3210' });
    expect(lines).toEqual([
      {
        level: 'INFO',
        message: 'lead request',
        timestamp: '2026-11-22T00:00:00.000Z',
        service: 'lead-intake',
        cold_start: true,
        correlation_id: 'r1',
        requestId: 'r1',
        endpoint: 'website',
        outcome: 'created',
        status: 200,
        mobile: '******3210',
      },
    ]);
  });

  it('counts leads created, repeated and refused by reason, per source, and one cold start, in the embedded metric format', () => {
    const { sink, emf } = captured({ functionName: 'LeadIntake-dev-website' });
    sink({ endpoint: 'portala', outcome: 'created', status: 200 });
    sink({ endpoint: 'social', outcome: 'repeated', status: 200 });
    sink({ endpoint: 'website', outcome: 'duplicate_lead', status: 422 });
    sink({ endpoint: 'website', outcome: 'database_unavailable', status: 503 });

    expect(emf().every((line) => line._aws.Timestamp === AT.getTime())).toBe(true);
    const count = { namespace: 'LeadIntake', unit: 'Count', value: 1 };
    expect(dataPoints(emf())).toEqual([
      { ...count, name: 'ColdStart', dimensions: { service: 'lead-intake', function_name: 'LeadIntake-dev-website' } },
      { ...count, name: 'LeadsCreated', dimensions: { service: 'lead-intake', source: 'portala' } },
      { ...count, name: 'LeadsRepeated', dimensions: { service: 'lead-intake', source: 'social' } },
      { ...count, name: 'LeadsRejected', dimensions: { service: 'lead-intake', source: 'website', reason: 'duplicate_lead' } },
      { ...count, name: 'LeadsFailed', dimensions: { service: 'lead-intake', source: 'website', reason: 'database_unavailable' } },
    ]);
  });

  it('emits no metric for dry runs, preflight, the Meta webhook acknowledgements and lines that are not requests', () => {
    const { sink, emf } = captured();
    sink({ level: 'warn', message: 'rejection not recorded' });
    sink({ endpoint: 'website', outcome: 'dry_run', status: 200 });
    sink({ endpoint: 'website', outcome: 'preflight', status: 204 });
    sink({ endpoint: 'meta', outcome: 'notification_received', status: 200 });
    expect(dataPoints(emf()).map((point) => point.name)).toEqual(['ColdStart']);
  });

  it('writes no metric at all when metrics are off (npm start), only the log lines', () => {
    const { sink, lines, emf } = captured({ metrics: false });
    sink({ endpoint: 'portala', outcome: 'created', status: 200 });
    expect(emf()).toEqual([]);
    expect(lines).toHaveLength(1);
  });

  it('counts every request in the metrics even when the log level drops its line', () => {
    const { sink, lines, emf } = captured({ logSettings: { level: 'ERROR', sampleRate: 0 } });
    sink({ level: 'info', endpoint: 'website', outcome: 'created', status: 200 });
    expect(lines.filter((line) => line._aws === undefined)).toEqual([]);
    expect(dataPoints(emf()).map((point) => point.name)).toEqual(['ColdStart', 'LeadsCreated']);
  });

  it("writes a request's log line and its metrics in one write, one line each", () => {
    const writes: string[] = [];
    const sink = telemetrySink({ metrics: true, write: (text) => writes.push(text), now: () => AT, logSettings: { level: 'INFO', sampleRate: 0 } });
    sink({ endpoint: 'website', outcome: 'created', status: 200 });
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').map((line) => Object.keys(JSON.parse(line))[0])).toEqual(['level', '_aws', '_aws']);
  });
});
