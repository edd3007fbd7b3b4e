// Bundled in place of @smithy/core/event-streams (lib/constructs/lead-function.ts says why). The SDK loads
// that module only for an operation with an event stream (S3 Select, Kinesis SubscribeToShard, ...); no
// client these functions bundle has one, so reaching this is a change that needs the real module back.
throw new Error('@smithy/core/event-streams is not bundled: no operation of these functions streams events (lib/constructs/lead-function.ts)');
