/**
 * Synthesizes the stack for the CDK tests the way `cdk synth` does (the feature flags of cdk.json), but
 * without bundling the functions unless a test asks for it: bundling only costs time where the template
 * is what is checked.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LeadIntakeStack, type LeadIntakeStackProps } from '../../lib/lead-intake-stack.ts';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> };

/**
 * The settings of a stack that delivers to the CRM: its API destination, live delivery rule and the
 * replay path (lib/constructs/lead-replays.ts) exist only then. The IAM check and the bundling test
 * use it, so every role and function of a full deployment is checked.
 */
export const crmDeliveryContext = { crmWebhookUrl: 'https://crm.example/hooks/leads', crmWebhookAuthorizationSecret: 'lead-intake/crm-webhook' } as const;

export interface Synthesized {
  readonly app: App;
  readonly stack: LeadIntakeStack;
  readonly template: Template;
}

export function synthesize(options: { props?: LeadIntakeStackProps; context?: Record<string, unknown>; bundle?: boolean; outdir?: string } = {}): Synthesized {
  const app = new App({
    outdir: options.outdir,
    context: {
      ...cdkJson.context,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
  });
  const stack = new LeadIntakeStack(app, 'LeadIntake-test', options.props);
  return { app, stack, template: Template.fromStack(stack) };
}

type Resources = Record<string, { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

/** The logical id of the one resource of a type whose properties match. */
export function logicalIdOf(template: Template, type: string, properties: Record<string, unknown> = {}): string {
  const found = Object.keys(template.findResources(type, { Properties: properties }));
  if (found.length !== 1) throw new Error(`expected one ${type} matching, found ${found.length}`);
  return found[0]!;
}

export function resources(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/**
 * The start of the logical id of the Lambda function of a LeadFunction at `functionPath` under the stack
 * (its child `Function`): CDK joins the path's ids, leaving out an id the one before it ends with
 * (`CallLeadWebhook/Webhook` is `CallLeadWebhook...`).
 */
export const functionIdPrefix = (functionPath: readonly string[]): string =>
  [...functionPath, 'Function'].reduce<string[]>((kept, id) => (kept.length > 0 && kept.at(-1)!.endsWith(id) ? kept : [...kept, id]), []).join('');
