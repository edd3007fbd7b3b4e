import { describe, expect, it } from '@jest/globals';
import { logLineSink, logSettingsFromEnvironment, type LogSettings } from '../../shared/log.ts';

const AT = new Date('2026-11-24T00:00:00Z');

/** A sink whose written lines are kept, parsed; `draws` are the sampling draws, in turn. */
const sinkWith = (settings: LogSettings, { draws = [0.99], functionName }: { draws?: number[]; functionName?: string } = {}) => {
  const lines: Record<string, unknown>[] = [];
  let draw = 0;
  const sink = logLineSink({ settings, functionName, now: () => AT, random: () => draws[draw++ % draws.length]!, write: (text) => lines.push(JSON.parse(text)) });
  return { sink, lines };
};

describe('log level and sampling from the environment, as Powertools Logger reads them', () => {
  it('is INFO without sampling when nothing is set', () => {
    expect(logSettingsFromEnvironment({})).toEqual({ level: 'INFO', sampleRate: 0 });
  });

  it('takes POWERTOOLS_LOG_LEVEL, in any case, over the legacy LOG_LEVEL', () => {
    expect(logSettingsFromEnvironment({ POWERTOOLS_LOG_LEVEL: 'warn', LOG_LEVEL: 'DEBUG' }).level).toBe('WARN');
    expect(logSettingsFromEnvironment({ LOG_LEVEL: 'DEBUG' }).level).toBe('DEBUG');
  });

  it("lets Lambda's advanced logging controls (AWS_LAMBDA_LOG_LEVEL) win, FATAL read as CRITICAL", () => {
    expect(logSettingsFromEnvironment({ AWS_LAMBDA_LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'DEBUG' }).level).toBe('ERROR');
    expect(logSettingsFromEnvironment({ AWS_LAMBDA_LOG_LEVEL: 'FATAL' }).level).toBe('CRITICAL');
  });

  it('ignores a level it does not know and a sampling rate outside 0..1', () => {
    expect(logSettingsFromEnvironment({ POWERTOOLS_LOG_LEVEL: 'LOUD', POWERTOOLS_LOGGER_SAMPLE_RATE: '7' })).toEqual({ level: 'INFO', sampleRate: 0 });
    expect(logSettingsFromEnvironment({ POWERTOOLS_LOGGER_SAMPLE_RATE: '0.25' }).sampleRate).toBe(0.25);
  });
});

describe("the service's log lines", () => {
  it('drop what is below the level and keep what is at or above it', () => {
    const { sink, lines } = sinkWith({ level: 'WARN', sampleRate: 0 });
    sink({ level: 'info', requestId: 'a' });
    sink({ level: 'warn', requestId: 'b' });
    sink({ level: 'error', requestId: 'c' });
    expect(lines.map((line) => [line.level, line.requestId])).toEqual([
      ['WARN', 'b'],
      ['ERROR', 'c'],
    ]);
  });

  it('write nothing at SILENT', () => {
    const { sink, lines } = sinkWith({ level: 'SILENT', sampleRate: 0 });
    sink({ level: 'error', requestId: 'a' });
    expect(lines).toEqual([]);
  });

  it("keep a sampled request's line whatever the level, and say the rate", () => {
    const { sink, lines } = sinkWith({ level: 'ERROR', sampleRate: 0.1 }, { draws: [0.05, 0.5] });
    sink({ level: 'info', requestId: 'sampled' });
    sink({ level: 'info', requestId: 'not sampled' });
    expect(lines.map((line) => [line.requestId, line.sampling_rate])).toEqual([['sampled', 0.1]]);
  });

  it("carry the request's correlation id, the function's name and the cold start on the container's first line only", () => {
    const { sink, lines } = sinkWith({ level: 'INFO', sampleRate: 0 }, { functionName: 'LeadIntake-dev-website' });
    sink({ requestId: 'req-1', endpoint: 'website' });
    sink({ requestId: 'req-2', endpoint: 'website' });
    expect(lines.map((line) => [line.correlation_id, line.function_name, line.cold_start])).toEqual([
      ['req-1', 'LeadIntake-dev-website', true],
      ['req-2', 'LeadIntake-dev-website', false],
    ]);
    expect(lines[0]).not.toHaveProperty('sampling_rate');
  });
});
