/**
 * The CDK app: one lead intake stack per stage, named `LeadIntake-<stage>`. Settings come from context:
 *   npx cdk deploy -c stage=prod -c alarmEmail=ops@example.com -c corsAllowedOrigins=https://www.example.com
 * (see lib/settings.ts for all of them and their defaults). cdk-nag's AWS Solutions checks run on every
 * synth: an unacknowledged finding fails it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LeadIntakeStack } from '../lib/lead-intake-stack.ts';
import { stackNameFor, stageFromContext } from '../lib/settings.ts';

const app = new App();
new LeadIntakeStack(app, stackNameFor(stageFromContext(app.node)));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
