/**
 * `npm run admin -- replay-events`: replays the archived lead events of a period, to the replay rule
 * alone (its path skips erased leads: CONTRACT.md section 14). The
 * EventBridge client is the real one, with the network step replaced by a recorder, so what is
 * checked is the StartReplay request the command makes.
 */
import { EventBridgeClient, type StartReplayCommandInput } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';

const stack = {
  LEAD_EVENTS_ARCHIVE_ARN: 'arn:aws:events:ap-south-1:111122223333:archive/lead-events',
  LEAD_EVENTS_BUS_ARN: 'arn:aws:events:ap-south-1:111122223333:event-bus/lead-intake',
  LEAD_EVENTS_REPLAY_RULE_ARN: 'arn:aws:events:ap-south-1:111122223333:rule/lead-intake/crm-replays',
};

const replay = async (argv: string[], env: NodeJS.ProcessEnv = stack) => {
  const requests: StartReplayCommandInput[] = [];
  const client = new EventBridgeClient({ region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  client.middlewareStack.add(
    () => async (args) => {
      requests.push(args.input as StartReplayCommandInput);
      return { output: { $metadata: {}, State: 'STARTING', ReplayArn: 'arn:replay' }, response: {} };
    },
    { step: 'initialize', name: 'recordInsteadOfSending' },
  );
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(['replay-events', ...argv], { env, eventBridge: () => client, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr, requests };
};

describe('replay-events', () => {
  it('starts a replay of the archive, for the period given, to the replay rule only (the one that skips erased leads)', async () => {
    const { code, stdout, stderr, requests } = await replay(['--since', '2026-11-20T10:00:00Z', '--until', '2026-11-20T17:30:00+05:30']);
    expect(code).toBe(0);
    expect(requests).toEqual([
      {
        ReplayName: expect.stringMatching(/^lead-events-20261120100000-[0-9a-f]{8}$/),
        Description: 'Lead events from 2026-11-20T10:00:00.000Z to 2026-11-20T12:00:00.000Z, without erased leads',
        EventSourceArn: stack.LEAD_EVENTS_ARCHIVE_ARN,
        EventStartTime: new Date('2026-11-20T10:00:00Z'),
        EventEndTime: new Date('2026-11-20T12:00:00Z'),
        Destination: { Arn: stack.LEAD_EVENTS_BUS_ARN, FilterArns: [stack.LEAD_EVENTS_REPLAY_RULE_ARN] },
      },
    ]);
    expect(stdout.trim()).toBe(requests[0]!.ReplayName);
    expect(stderr).toContain('through the replay rule only, skipping the Lead Created events of leads erased since');
  });

  it('replays until now when --until is not given', async () => {
    const before = Date.now();
    const { code, requests } = await replay(['--since', '2026-11-20']);
    expect(code).toBe(0);
    expect(requests[0]!.EventEndTime!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(requests[0]!.Destination).toEqual({ Arn: stack.LEAD_EVENTS_BUS_ARN, FilterArns: [stack.LEAD_EVENTS_REPLAY_RULE_ARN] });
  });

  it('never replays to every rule of the bus: without the replay rule it exits 1 and starts nothing (another subscriber would get erased leads again)', async () => {
    const { LEAD_EVENTS_REPLAY_RULE_ARN: _rule, ...withoutRule } = stack;
    const { code, stderr, requests } = await replay(['--since', '2026-11-20'], { ...withoutRule, LEAD_EVENTS_DELIVERY_RULE_ARN: 'arn:aws:events:ap-south-1:111122223333:rule/lead-intake/crm-delivery' });
    expect([code, requests]).toEqual([1, []]);
    expect(stderr).toContain('LEAD_EVENTS_REPLAY_RULE_ARN');
    expect(stderr).toContain('CrmReplayRuleArn');
  });

  it.each([
    [['--until', '2026-11-20T10:00:00Z'], '--since is required'],
    [['--since', 'yesterday'], '--since must be an ISO-8601 date'],
    [['--since', '2026-11-20T10:00:00Z', '--until', '2026-11-20T09:00:00Z'], 'must be after --since'],
  ])('exits 2 for bad arguments (%j) and starts nothing', async (argv, problem) => {
    const { code, stderr, requests } = await replay(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(problem);
    expect(requests).toEqual([]);
  });

  it('exits 1 against a local DynamoDB, or without the stack outputs, and starts nothing', async () => {
    const local = await replay(['--since', '2026-11-20'], { ...stack, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' });
    expect([local.code, local.requests]).toEqual([1, []]);
    expect(local.stderr).toContain('deployed stack only');
    expect(local.stderr).toContain('the local run keeps no archive');
    const unset = await replay(['--since', '2026-11-20'], {});
    expect([unset.code, unset.requests]).toEqual([1, []]);
    expect(unset.stderr).toContain('LEAD_EVENTS_ARCHIVE_ARN');
  });
});
