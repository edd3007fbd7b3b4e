import { withinFunctionDeadline } from '../deadline.ts';
import type { AccountDirectory } from '../domain/account-directory.ts';
import { createLead, leadRecord, replayed, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { submissionOf, taggingOf, type SubmissionTagging } from '../domain/submissions.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { idempotentReplay } from './middleware/idempotent-replay.ts';
import type { LeadEndpointDeclaration } from '../endpoints.ts';
import type { LeadSource } from '../domain/lead.ts';
import type { DeclaredAs } from '../intake/steps.ts';
import type { RejectionLog } from '../domain/ports/rejections.ts';
import type { LogSink } from '../log.ts';
import { JsonNumber } from '../schemas/json-number.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { leadCreated, leadWouldBeCreated } from './envelope.ts';
import { andThen } from './lead-chain.ts';
import { intakeChain } from '../intake/chain.ts';
import { apiKeyAuthentication, jsonBody } from '../intake/steps.ts';
import type { Authenticated, LeadContext, LeadResponse, WithBody, WithFields, WithOptions } from './lambda.ts';
import { corsPolicy } from './middleware/cors.ts';
import { leadFields } from './middleware/lead-fields.ts';
import { honeypot, HONEYPOT_FIELD } from './middleware/honeypot.ts';
import { recordRejection, rejectionLog, type Refusal } from './middleware/rejection-log.ts';
import { captchaChallenge, type ChallengeDependencies } from './middleware/captcha-challenge.ts';
import { CHALLENGE_TOKEN_FIELD, challengeTokenOf } from '../domain/challenge.ts';
import { CaptchaVerificationFailedError } from '../domain/errors.ts';
import { submissionOptions } from './middleware/submission-options.ts';

/** Everything a lead handler needs from its container, built once per container (see runtime.ts). */
export interface LeadRuntime extends CreateLeadDependencies {
  readonly directory: AccountDirectory;
  readonly rejections: RejectionLog;
  readonly log: LogSink;
  readonly corsAllowedOrigins: readonly string[];
  /** Challenges for browser keys (the website endpoint); without it, no key's challenge is checked. */
  readonly challenges?: ChallengeDependencies;
}

// Section 1's bound on a body, the intake's (steps.ts), under its name here too.
export { MAX_BODY_BYTES } from '../intake/steps.ts';

/**
 * The Lambda handler of one endpoint: the one intake's chain (shared/intake/handler.ts) with the steps
 * its declaration names (an API key allowed on the endpoint, a JSON body), then the endpoint's own. The
 * chain runs the contract's checks in its order: API key, then what the key allows (endpoint, origin,
 * dry run), then size, Content-Type and JSON, then fields and, for a browser key, the honeypot and its
 * challenge; the domain then checks sub source, project, campaign and duplicates, and stores the lead.
 */
/** An endpoint as its function reads it (shared/endpoints.ts): a source of the intake with an API key and a JSON body. */
export type LeadEndpoint = LeadEndpointDeclaration & DeclaredAs<'api-key', 'json'> & { readonly leadSource: LeadSource };

export const leadHandler = (endpoint: LeadEndpoint, runtime: LeadRuntime) => withinFunctionDeadline(leadChain(endpoint, runtime));

/** What the lead endpoints' handler is given: every step's context, the key's, the body's, the options' and the fields'. */
type SubmittedContext = LeadContext & Authenticated & WithBody & WithOptions & WithFields;

const leadChain = (endpoint: LeadEndpoint, runtime: LeadRuntime) => {
  const challenges = runtime.challenges;
  // How its leads are tagged: its declaration's source and sub source.
  const tagging = taggingOf(endpoint);
  // Middy's own early timeout is off (lead-chain.ts): the key and account reads before the handler, and
  // the rejection record after it, are under the function's deadline too.
  return intakeChain(
    endpoint,
    runtime.log,
    { authentication: apiKeyAuthentication(endpoint, runtime.directory), body: jsonBody(endpoint) },
    endpoint.browserFacing ? corsPolicy({ allowedOrigins: runtime.corsAllowedOrigins }) : undefined,
  )
    // Its onError runs before the envelope's, wherever it stands: the envelope's is the only other.
    .use(rejectionLog(runtime.rejections, endpoint.name))
    .use(submissionOptions(endpoint.name))
    .use(leadFields(leadFieldValidator(endpoint.fields, endpoint.unknownFields)))
    .use(honeypot())
    // A browser key's challenge, and the replay read before it (CONTRACT.md section 14), where the endpoint has challenges.
    .use(endpoint.browserFacing && challenges ? andThen<LeadContext & Authenticated & WithBody & WithOptions, object, object>(idempotentReplay(runtime.leads), captchaChallenge(challenges)) : [])
    .handler(async (_event, context) => {
      const { idempotency, dryRun } = context;
      if (context.replay) return answerReplayed(endpoint, context, context.replay);
      if (context.bot) return answerBot(endpoint, tagging, runtime, context);
      if (context.challenge === 'failed') return refuseChallenge(endpoint, tagging, runtime, context);
      if (context.challenge === 'unavailable') return answerUnverified(endpoint, tagging, runtime, context);
      const { lead, replayed } = await createLead(submissionOf(tagging, context.fields), context.account, runtime, {
        ...(idempotency && { idempotency }),
        dryRun,
      });
      context.leadId = lead.id;
      if (dryRun) {
        context.outcome = 'dry_run';
        return leadWouldBeCreated(lead);
      }
      if (replayed) return answerReplayed(endpoint, context, lead);
      context.outcome = lead.is_repeated ? 'repeated' : 'created';
      return leadCreated(endpoint.acceptance.withLead ? lead : undefined);
    });
};

/** The answer an Idempotency-Key gave already, again: same status and body, marked replayed (CONTRACT.md section 14). */
const answerReplayed = (endpoint: LeadEndpoint, context: LeadContext, lead: LeadRecord): LeadResponse => {
  context.leadId = lead.id;
  context.outcome = 'idempotent_replay';
  return leadCreated(endpoint.acceptance.withLead ? lead : undefined, { 'idempotent-replayed': 'true' });
};

/**
 * A bot gets the answer a new lead would get, so it learns nothing; nothing is stored as a lead. The
 * submission is quarantined whole (a person whose browser filled the trap can be released into a lead,
 * CONTRACT.md section 11), with the trap's value, cut to 200 characters by the record's bound.
 */
const answerBot = (endpoint: LeadEndpoint, tagging: SubmissionTagging, runtime: LeadRuntime, context: SubmittedContext): Promise<LeadResponse> => {
  const filled = context.body[HONEYPOT_FIELD];
  return answerQuarantined(endpoint, tagging, runtime, context, {
    reason: 'honeypot',
    message: `${HONEYPOT_FIELD} was filled`,
    fields: { [HONEYPOT_FIELD]: typeof filled === 'string' ? filled : filled instanceof JsonNumber ? filled.source : JSON.stringify(filled) },
  });
};

/**
 * The challenge's provider could not answer (unreachable, 5xx, too slow): the lead is not lost. The
 * sender gets the bot's answer (a new lead's), and the submission is quarantined for a person to release.
 */
const answerUnverified = (endpoint: LeadEndpoint, tagging: SubmissionTagging, runtime: LeadRuntime, context: SubmittedContext): Promise<LeadResponse> =>
  answerQuarantined(endpoint, tagging, runtime, context, {
    reason: 'captcha_unavailable',
    message: 'the challenge provider did not answer in time',
    fields: {},
  });

/** No token, or the provider refused it: 403, and the submission quarantined (the page may retry with a new token). */
const refuseChallenge = async (endpoint: LeadEndpoint, tagging: SubmissionTagging, runtime: LeadRuntime, context: SubmittedContext): Promise<never> => {
  await recordRejection(runtime.rejections, endpoint.name, context, {
    reason: 'captcha_failed',
    message: challengeTokenOf(context.body) === undefined ? `${CHALLENGE_TOKEN_FIELD} was missing` : `the challenge provider refused the ${CHALLENGE_TOKEN_FIELD}`,
    fields: {},
    submission: submissionOf(tagging, context.fields),
  });
  throw new CaptchaVerificationFailedError();
};

/** Answers as a new lead would be answered, with nothing stored as a lead and the submission kept whole in quarantine. */
const answerQuarantined = async (
  endpoint: LeadEndpoint,
  tagging: SubmissionTagging,
  runtime: LeadRuntime,
  context: SubmittedContext,
  refusal: Omit<Refusal, 'submission'>,
): Promise<LeadResponse> => {
  const submission = submissionOf(tagging, context.fields);
  const lead = leadRecord(submission, runtime.newLeadId(), runtime.now());
  // Under an Idempotency-Key, the key keeps this answer with the record; a repeat gets the first answer.
  const earlier = await recordRejection(runtime.rejections, endpoint.name, context, { ...refusal, submission, answered: lead });
  if (earlier) return answerReplayed(endpoint, context, replayed(earlier).lead);
  context.leadId = lead.id;
  context.outcome = refusal.reason;
  return leadCreated(endpoint.acceptance.withLead ? lead : undefined);
};

// What an endpoint received, in the domain's terms: shared with the platforms' intakes (shared/domain/submissions.ts).
export { submissionOf };
