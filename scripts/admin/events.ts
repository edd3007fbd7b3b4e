/**
 * Lead events (CONTRACT.md section 9): replaying the archive to the CRM (AWS only), through the replay
 * rule alone, whose path skips the Lead Created events of leads erased since (section 14;
 * lib/constructs/lead-replays.ts). Never to every rule of the bus: another subscriber would get an
 * erased lead's details again.
 */
import { randomBytes } from 'node:crypto';
import { EventBridgeClient, StartReplayCommand } from '@aws-sdk/client-eventbridge';
import { runtimeSettings } from '../../shared/routes.ts';
import { CommandError, HELP, isoTime, required, UsageError, type CommandModule } from './command.ts';

/** Where `replay-events` finds the deployed stack's event archive, bus and replay rule (its outputs). */
export const leadEventSettings = {
  archiveArn: 'LEAD_EVENTS_ARCHIVE_ARN',
  busArn: 'LEAD_EVENTS_BUS_ARN',
  replayRuleArn: 'LEAD_EVENTS_REPLAY_RULE_ARN',
} as const;

const events: CommandModule = {
  'replay-events': {
    usage: 'replay-events --since ISO-8601 [--until ISO-8601]',
    summary:
      "Replay the archived lead events of a period (until now by default) to the CRM, after its endpoint lost some, skipping the Lead Created events of leads erased since (AWS only; LEAD_EVENTS_ARCHIVE_ARN, LEAD_EVENTS_BUS_ARN and LEAD_EVENTS_REPLAY_RULE_ARN from the stack's outputs).",
    options: { ...HELP, since: { type: 'string' }, until: { type: 'string' } },
    positionals: [],
    usesDatabase: false,
    run: async ({ values }, _repository, io) => {
      const since = isoTime(required(values.since, '--since', 'replay-events'), '--since', 'replay-events');
      const until = values.until === undefined ? new Date().toISOString() : isoTime(values.until as string, '--until', 'replay-events');
      if (until <= since) throw new UsageError(`--until (${until}) must be after --since (${since})`, 'replay-events');
      if (io.env[runtimeSettings.dynamodbEndpoint]) {
        throw new CommandError('replay-events works on the deployed stack only: the local run keeps no archive, so there is nothing to replay (its webhook delivery retries instead); unset DYNAMODB_ENDPOINT');
      }
      const archive = io.env[leadEventSettings.archiveArn];
      const bus = io.env[leadEventSettings.busArn];
      const rule = io.env[leadEventSettings.replayRuleArn];
      if (!archive || !bus || !rule) {
        throw new CommandError(
          `set ${leadEventSettings.archiveArn}, ${leadEventSettings.busArn} and ${leadEventSettings.replayRuleArn} to the deployed stack's outputs EventArchiveArn, EventBusArn and CrmReplayRuleArn ` +
            '(the stack has a replay rule when it delivers to the CRM: crmWebhookUrl); replays go to that rule only, which skips erased leads',
        );
      }
      // EventBridge replay names: up to 64 letters, digits, '.', '-', '_'.
      const name = `lead-events-${since.replace(/[^0-9]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;
      const client = io.eventBridge?.() ?? new EventBridgeClient({});
      const { State } = await client.send(
        new StartReplayCommand({
          ReplayName: name,
          Description: `Lead events from ${since} to ${until}, without erased leads`,
          EventSourceArn: archive,
          EventStartTime: new Date(since),
          EventEndTime: new Date(until),
          Destination: { Arn: bus, FilterArns: [rule] },
        }),
      );
      io.stdout(`${name}\n`);
      io.stderr(
        `Replay ${name} ${State?.toLowerCase() ?? 'started'}: lead events from ${since} to ${until}, to the CRM through the replay rule only, ` +
          `skipping the Lead Created events of leads erased since. Receivers deduplicate by detail.lead.id. Follow it with: aws events describe-replay --replay-name ${name}\n`,
      );
    },
  },
};

export default events;
