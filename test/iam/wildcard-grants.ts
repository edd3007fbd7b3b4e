/**
 * Grants whose action or resource is a pattern (`*`, `?`), each kept for a reason: a call shows that one
 * action on one resource is needed, never the rest of what a pattern grants, so a wildcard grant not named
 * here fails the IAM check (test/iam/check.ts, and test/iam/permissions.test.ts on the stack alone):
 * narrow it, or say here why it must stay. Keys are the check's labels, `<role>: <action> on <resource>`
 * (policy-check.ts grantLabel), one for each role, action and resource: naming a pattern for one role
 * or one log group does not cover another.
 */
import { functionNames, grantLabel, type StackModel } from './policy-check.ts';

const logWriting = ['logs:CreateLogStream', 'logs:PutLogEvents'] as const;

const ownLogStreams =
  'Lambda names each log stream when a container starts (date, version, instance id), so no grant can name one: ' +
  "the pattern is the function's own log group's streams (its LogGroup's ARN, `log-group:<name>:*`), no other group's.";

const pipeLogStreams =
  'EventBridge Pipes names the streams of its error log itself, so no grant can name one: the pattern is the ' +
  "pipes' own log group's streams (its LogGroup's ARN, `log-group:<name>:*`), no other group's.";

export const wildcardGrants = (model: StackModel): Readonly<Record<string, string>> => {
  const pipeLogGroup = model.getAtt(
    model.template.Resources[model.idOf('AWS::Pipes::Pipe', /^Lead Created events/)]!.Properties.LogConfiguration.CloudwatchLogsLogDestination.LogGroupArn['Fn::GetAtt'][0],
    'Arn',
  );
  return {
    ...Object.fromEntries(
      functionNames.flatMap((fn) => logWriting.map((action) => [grantLabel(fn, action, model.getAtt(model.functions[fn].logGroup, 'Arn')), ownLogStreams])),
    ),
    ...Object.fromEntries(['pipes', 'replay-pipe'].flatMap((role) => logWriting.map((action) => [grantLabel(role, action, pipeLogGroup), pipeLogStreams]))),
    'source-watch: dynamodb:ListStreams on *':
      'ListStreams has no resource type: IAM authorises it against "*" alone, so the stream mapping of the quiet-source watch could ' +
      'not list its source otherwise (lib/constructs/source-watch.ts). It returns stream names and ARNs, never a record.',
    'pipes: dynamodb:ListStreams on *':
      'ListStreams has no resource type: IAM authorises it against "*" alone, so a grant on the stream never applies and the pipes ' +
      'could not list their source (lib/constructs/lead-events.ts). It returns stream names and ARNs, never a record.',
  };
};
