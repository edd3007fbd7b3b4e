/**
 * One Meta leadgen change becomes one lead, through the social endpoint's rules and the same domain
 * code as the four endpoints (CONTRACT.md section 8): the page's account, the form's project and
 * campaign, the lead read from Graph, the social validator, then createLead with the leadgen id as
 * idempotency key in the lead's own transaction, so a redelivery stores nothing twice.
 *
 * Every change ends in exactly one of: a lead (new or replayed), a rejection record in the account's
 * log, a log line and metric for a page no account has, or a retry later. The caller (the SQS worker,
 * or the local in-memory queue) says whether this is the last attempt: then a failure that would be
 * retried is recorded instead, and the message is left for the dead-letter queue.
 */
import type { AccountDirectory } from '../domain/account-directory.ts';
import { createLead, type CreateLeadDependencies } from '../domain/create-lead.ts';
import { ClientNotFoundError, LeadErasedError, LeadIntakeError } from '../domain/errors.ts';
import type { LeadRecord } from '../domain/lead.ts';
import { GraphReadError, isRejection, MetaFormNotMappedError, MetaGraphReadFailedError, MetaTokenRefusedError } from './errors.ts';
import type { MetaFormMapping, MetaPage, MetaPageDirectory, MetaPageView } from './pages.ts';
import type { IdempotencyClaim } from '../domain/ports/leads.ts';
import type { Rejection, RejectionLog } from '../domain/ports/rejections.ts';
import { identifiersOfSubmission, mobileTraceOf } from '../domain/person-data.ts';
import { PLATFORM_LEAD_IDEMPOTENCY_SECONDS, platformLeadIdempotency, recordRefusal } from '../domain/platform-leads.ts';
import { refusedFields } from '../domain/rejections.ts';
import { socialEndpoint } from '../endpoints.ts';
import { submissionOf, taggingOf } from '../domain/submissions.ts';
import { describe } from '../http/middleware/http-envelope.ts';
import type { LogSink } from '../log.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import type { GraphLead, MetaLeadReader } from './graph.ts';
import { socialBodyOf } from './lead-mapping.ts';
import type { LeadgenChange } from './notification.ts';
import { metaWireNames } from './wire-names.ts';

/** The endpoint name Meta leads carry in logs, metrics and rejection records. */
export const META_ENDPOINT = 'meta';

/** How long a leadgen id holds as idempotency key (shared/domain/platform-leads.ts). */
export const META_IDEMPOTENCY_SECONDS = PLATFORM_LEAD_IDEMPOTENCY_SECONDS;

export interface LeadgenDependencies extends CreateLeadDependencies {
  readonly pages: MetaPageDirectory;
  readonly directory: AccountDirectory;
  readonly graph: MetaLeadReader;
  readonly rejections: RejectionLog;
  readonly log: LogSink;
}

export interface Attempt {
  /** 1 for the first delivery. */
  readonly number: number;
  /** No retry follows: record what would otherwise be retried. */
  readonly final: boolean;
}

export type LeadgenOutcome =
  | { readonly kind: 'created'; readonly lead: LeadRecord; readonly replayed: boolean }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** An earlier notification of this leadgen id decided already (a lead or a record): nothing changed. */
  | { readonly kind: 'already_decided' }
  | { readonly kind: 'page_not_configured' }
  /** Not done: deliver again later (Graph or the database was unavailable). */
  | { readonly kind: 'retry'; readonly reason: string }
  /** Retries exhausted: recorded where possible; the message belongs on the dead-letter queue. */
  | { readonly kind: 'gave_up'; readonly reason: string };

const validateSocialFields = leadFieldValidator(socialEndpoint.fields, socialEndpoint.unknownFields);

/** The leadgen id as idempotency claim: a key no Idempotency-Key header can spell (it holds a newline). */
export const leadgenIdempotency = (leadgenId: string): IdempotencyClaim => platformLeadIdempotency(metaWireNames.platformId.idempotencyPrefix, META_ENDPOINT, leadgenId);

/** Context of one change as it goes, for its log line and rejection record. */
interface Progress {
  accountId?: string;
  formId?: string;
  fields?: ValidatedFields;
  body?: Record<string, unknown>;
}

export const processLeadgenChange = async (change: LeadgenChange, deps: LeadgenDependencies, attempt: Attempt): Promise<LeadgenOutcome> => {
  const started = performance.now();
  const progress: Progress = { ...(change.formId && { formId: change.formId }) };
  let outcome: LeadgenOutcome;
  let error: unknown;
  try {
    outcome = await createMetaLead(change, deps, progress);
  } catch (failure) {
    error = failure;
    outcome = await settleFailure(change, deps, attempt, progress, failure);
  }
  const status = outcome.kind === 'created' || outcome.kind === 'already_decided' ? 200 : outcome.kind === 'rejected' ? 422 : outcome.kind === 'page_not_configured' ? 404 : 503;
  deps.log({
    level: status >= 500 ? (outcome.kind === 'gave_up' ? 'error' : 'warn') : outcome.kind === 'page_not_configured' ? 'warn' : 'info',
    message: outcome.kind === 'page_not_configured' ? 'meta leadgen for a page no account has' : 'meta leadgen',
    requestId: change.requestId,
    endpoint: META_ENDPOINT,
    ...(progress.accountId && { accountId: progress.accountId }),
    pageId: change.pageId,
    leadgenId: change.leadgenId,
    ...(progress.formId && { formId: progress.formId }),
    outcome: outcomeName(outcome),
    status,
    attempt: attempt.number,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    ...(outcome.kind === 'created' && { leadId: outcome.lead.id }),
    ...(error !== undefined && !(error instanceof LeadIntakeError) && !(error instanceof GraphReadError) && { error: describe(error) }),
    ...(error instanceof GraphReadError && { graph: error.summary }),
  });
  return outcome;
};

const outcomeName = (outcome: LeadgenOutcome): string => {
  switch (outcome.kind) {
    case 'created':
      return outcome.replayed ? 'idempotent_replay' : outcome.lead.is_repeated ? 'repeated' : 'created';
    case 'page_not_configured':
      return 'meta_page_not_configured';
    case 'rejected':
      return outcome.reason;
    case 'already_decided':
      return 'already_decided';
    case 'retry':
      return `retry_${outcome.reason}`;
    case 'gave_up':
      return `gave_up_${outcome.reason}`;
  }
};

const createMetaLead = async (change: LeadgenChange, deps: LeadgenDependencies, progress: Progress): Promise<LeadgenOutcome> => {
  const view = await deps.pages.find(change.pageId);
  if (!view) return { kind: 'page_not_configured' };
  progress.accountId = view.page.accountId;

  // The form is known from the notification: an unmapped one is refused before Graph is called.
  let form = change.formId === undefined ? undefined : await mappingOf(view, change.formId);
  if (change.formId !== undefined && !form) throw new MetaFormNotMappedError();

  const graphLead = await readLead(change.leadgenId, view, deps.graph);
  if (!form) {
    progress.formId = graphLead.form_id;
    form = graphLead.form_id === undefined ? undefined : await mappingOf(view, graphLead.form_id);
    if (!form) throw new MetaFormNotMappedError();
  }

  progress.body = socialBodyOf(graphLead, form);
  const fields = validateSocialFields(progress.body);
  progress.fields = fields;
  const submission = submissionOf(taggingOf(socialEndpoint), fields);
  const account = await deps.directory.account(view.page.accountId);
  try {
    const { lead, replayed } = await createLead(
      // The page id is stored with the lead but is not part of its record (lead-items.ts): the quiet-source
      // watch tells a page's leads apart by it (CONTRACT.md section 16).
      { ...submission, details: { ...submission.details, meta_leadgen_id: change.leadgenId, meta_form_id: progress.formId!, meta_page_id: change.pageId } },
      account,
      deps,
      { idempotency: leadgenIdempotency(change.leadgenId) },
    );
    return { kind: 'created', lead, replayed };
  } catch (error) {
    // A redelivery of a lead its person had erased (CONTRACT.md section 12): done, and nothing recorded about them again.
    if (error instanceof LeadErasedError) return { kind: 'rejected', reason: error.reason };
    throw error;
  }
};

/** The form's mapping; a cached page is re-read once before a form is called unmapped. */
const mappingOf = async (view: MetaPageView, formId: string): Promise<MetaFormMapping | undefined> =>
  view.page.forms.get(formId) ?? (view.cached ? (await view.current())?.forms.get(formId) : undefined);

/** Reads the lead; a refused token that came from the cache is re-read once: it may have been replaced. */
const readLead = async (leadgenId: string, view: MetaPageView, graph: MetaLeadReader): Promise<GraphLead> => {
  try {
    return await graph.readLead(leadgenId, view.page.accessToken);
  } catch (error) {
    if (!(error instanceof GraphReadError) || error.kind !== 'token_refused' || !view.cached) throw error;
    const current: MetaPage | undefined = await view.current();
    if (!current || current.accessToken === view.page.accessToken) throw error;
    return graph.readLead(leadgenId, current.accessToken);
  }
};

/** A failure becomes a rejection record, a retry, or (on the last attempt) a record and the dead-letter queue. */
const settleFailure = async (change: LeadgenChange, deps: LeadgenDependencies, attempt: Attempt, progress: Progress, error: unknown): Promise<LeadgenOutcome> => {
  let refusal: LeadIntakeError | undefined;
  if (isRejection(error)) refusal = error;
  else if (error instanceof GraphReadError && error.kind === 'token_refused') refusal = new MetaTokenRefusedError();
  else if (error instanceof GraphReadError && error.kind === 'refused') refusal = new MetaGraphReadFailedError();
  else if (error instanceof ClientNotFoundError) return { kind: 'page_not_configured' };

  const transientReason = error instanceof GraphReadError ? 'meta_graph_read_failed' : error instanceof LeadIntakeError ? error.reason : 'unexpected_error';
  if (!refusal && !attempt.final) return { kind: 'retry', reason: transientReason };

  const accountId = progress.accountId;
  const reason = refusal?.reason ?? transientReason;
  if (!accountId) return refusal ? { kind: 'rejected', reason } : { kind: 'gave_up', reason };
  const rejection = refusal ?? (error instanceof GraphReadError ? new MetaGraphReadFailedError() : undefined);
  try {
    const record = rejectionOf(change, progress, error, rejection, reason);
    // A refusal decides the leadgen id (CONTRACT.md section 14): kept under the claim its lead would be
    // stored under, so of its notifications one lead or one record is kept, never both. A change given
    // up on (retries spent) decided nothing: its record is kept without the claim, so a redrive from the
    // dead-letter queue can still store the lead (section 8).
    if (refusal) {
      if ((await recordRefusal(deps.rejections, accountId, record, leadgenIdempotency(change.leadgenId))) === 'already_decided') return { kind: 'already_decided' };
    } else {
      await deps.rejections.record(accountId, record);
    }
  } catch (failure) {
    deps.log({ level: 'warn', requestId: change.requestId, endpoint: META_ENDPOINT, message: 'rejection not recorded', error: describe(failure) });
    // Not recorded: a refusal is tried again rather than lost without a trace.
    if (!attempt.final) return { kind: 'retry', reason: 'rejection_not_recorded' };
    return { kind: 'gave_up', reason };
  }
  return refusal ? { kind: 'rejected', reason } : { kind: 'gave_up', reason };
};

const rejectionOf = (change: LeadgenChange, progress: Progress, error: unknown, refusal: LeadIntakeError | undefined, reason: string): Rejection => {
  const person = identifiersOfSubmission(progress.fields ?? progress.body ?? {});
  return {
    at: new Date().toISOString(),
    // Unique per change: one notification may carry several.
    requestId: `${change.requestId}:${change.leadgenId}`,
    endpoint: META_ENDPOINT,
    reason,
    message: refusal?.message ?? (error instanceof LeadIntakeError ? error.message : 'The lead could not be stored after retries'),
    ...mobileTraceOf(person),
    fields: offendingFields(change, progress, error),
    platformIds: { [metaWireNames.platformId.field]: change.leadgenId },
    person,
  };
};

/** What failed, without contact details or tokens. */
const offendingFields = (change: LeadgenChange, progress: Progress, error: unknown): Record<string, unknown> => {
  const fields = progress.fields ?? {};
  const page = { page_id: change.pageId, ...(progress.formId && { form_id: progress.formId }) };
  const refused = refusedFields(error, fields);
  if (refused) return refused;
  if (error instanceof GraphReadError) return { ...page, ...error.summary };
  return page;
};
