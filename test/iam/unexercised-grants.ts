/**
 * Grants no recorded or declared call uses, each kept for a reason the IAM check cannot see. A grant
 * that is neither used nor named here fails the check (test/iam/reporter.ts): remove it, or say here
 * why it must stay. Keys are the check's labels: `<role>: <action> on <resource>`, account and region
 * left out.
 */
const repeatSettled =
  'A repeat whose original an erasure took while the repeat was being stored becomes the original ' +
  '(shared/domain/duplicates.ts settles it; shared/dynamodb/leads.ts, rewriteRepeat: UpdateItem of its lead and its key record, LEADS#/IDEMPOTENCY# only). ' +
  'Every lead function stores repeats through the same store; the race is driven at the wire in ' +
  'test/person/erasure-races.test.ts through one endpoint (portala), and is the same code on the others.';

const metaGaveUp =
  "A leadgen change given up on after the queue's last attempt, once its lead was read from the Graph API, is " +
  "recorded without its leadgen id's claim (so a redrive from the dead-letter queue can still store the lead, " +
  'CONTRACT.md section 8) and with its person lookup items, in one BatchWriteItem (shared/meta/leadgen.ts ' +
  'settleFailure, shared/dynamodb/rejections.ts). A refusal is recorded in a transaction under the claim ' +
  "(section 14), so the tests' refusals no longer drive a batch write; the give-up after a read is the same store code.";

export const unexercisedGrants: Readonly<Record<string, string>> = {
  'portalb: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'social: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'google-ads: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'whatsapp: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'meta-worker: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'portal-pull: dynamodb:UpdateItem on arn:aws:dynamodb:table/LeadsTable': repeatSettled,
  'portal-pull: dynamodb:GetItem on arn:aws:dynamodb:table/LeadsTable':
    "The read-back of a lead's write whose answer was lost (shared/dynamodb/contended-write.ts isApplied), before a 503: the pull's " +
    'lead store is the lead functions\' own, whose read-back test/reliability drives through the lead endpoints; the model test loses ' +
    'write answers beside pulls, but a pull that meets one mostly finds its slice failed and retries it at the next pull instead.',
  'meta-worker: dynamodb:BatchWriteItem on arn:aws:dynamodb:table/LeadsTable': metaGaveUp,
};
