import { describe, expect, it, jest } from '@jest/globals';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { telemetrySink } from '../../shared/telemetry.ts';

/** A real Powertools Metrics whose EMF output is captured instead of printed. */
const capturedMetrics = () => {
  const emitted: Record<string, any>[] = [];
  const metrics = new Metrics({ namespace: 'LeadIntake', serviceName: 'lead-intake' });
  (metrics as unknown as { console: unknown }).console = { log: (text: string) => emitted.push(JSON.parse(text)), warn: () => undefined };
  return { metrics, emitted };
};

const metricNames = (emf: Record<string, any>) => emf._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name);

describe('request telemetry', () => {
  it('writes one JSON line per request with level, message, timestamp and service', () => {
    const lines: string[] = [];
    const sink = telemetrySink({ metrics: capturedMetrics().metrics, write: (text) => lines.push(text), now: () => new Date('2026-11-22T00:00:00Z') });
    sink({ level: 'info', requestId: 'r1', endpoint: 'website', outcome: 'created', status: 200, mobile: '******3210' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'INFO',
      message: 'lead request',
      timestamp: '2026-11-22T00:00:00.000Z',
      service: 'lead-intake',
      requestId: 'r1',
      endpoint: 'website',
      outcome: 'created',
      status: 200,
      mobile: '******3210',
    });
  });

  it('counts leads created, repeated and refused by reason, per source, and one cold start', () => {
    const { metrics, emitted } = capturedMetrics();
    // Powertools writes the cold start through a metrics instance of its own (one metric, own dimensions).
    const coldStarts = jest.spyOn(metrics, 'captureColdStartMetric').mockImplementation(() => undefined);
    const sink = telemetrySink({ metrics, write: () => undefined });
    sink({ endpoint: 'portala', outcome: 'created', status: 200 });
    sink({ endpoint: 'social', outcome: 'repeated', status: 200 });
    sink({ endpoint: 'website', outcome: 'duplicate_lead', status: 422 });

    const all = emitted.flatMap((emf) => metricNames(emf).map((name: string) => ({ name, source: emf.source, reason: emf.reason })));
    expect(coldStarts).toHaveBeenCalledTimes(1);
    expect(all).toEqual([
      { name: 'LeadsCreated', source: 'portala', reason: undefined },
      { name: 'LeadsRepeated', source: 'social', reason: undefined },
      { name: 'LeadsRejected', source: 'website', reason: 'duplicate_lead' },
    ]);
    expect(emitted.at(-1)!.LeadsRejected).toBe(1);
  });

  it('emits no metric for dry runs, preflight and lines that are not requests', () => {
    const { metrics, emitted } = capturedMetrics();
    jest.spyOn(metrics, 'captureColdStartMetric').mockImplementation(() => undefined);
    const sink = telemetrySink({ metrics, write: () => undefined });
    sink({ level: 'warn', message: 'rejection not recorded' });
    sink({ endpoint: 'website', outcome: 'dry_run', status: 200 });
    sink({ endpoint: 'website', outcome: 'preflight', status: 204 });
    expect(emitted).toEqual([]);
  });
});
