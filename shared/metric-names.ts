/**
 * The service's CloudWatch metrics, named once: shared/telemetry.ts emits them, the stack's dashboard
 * (lib/constructs/monitoring.ts) draws them.
 */
export const SERVICE_NAME = 'lead-intake';
export const METRICS_NAMESPACE = 'LeadIntake';

export const leadMetrics = {
  created: 'LeadsCreated',
  repeated: 'LeadsRepeated',
  replayed: 'LeadsReplayed',
  /** Refusals (4xx) with their reason as a dimension. */
  rejected: 'LeadsRejected',
  /** Failures (5xx) with their reason as a dimension. */
  failed: 'LeadsFailed',
} as const;
