/**
 * The IAM check over a test run: `node test/iam/check.ts <records dir> [--all-tests-ran]`. Run by
 * test/iam/reporter.mjs once every test file has finished; exits 1 when a call is denied, when a
 * wildcard grant is not named in ./wildcard-grants.ts, or, when the whole suite ran, when a granted
 * action no call used is not named in ./unexercised-grants.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RecordedCall } from '../support/aws-calls.ts';
import { checkedRoles, evaluate, grantsOf, lambdaOnlyCalls, requestOfRecorded, reviewGrants, serviceCalls, stackModel } from './policy-check.ts';
import { unexercisedGrants } from './unexercised-grants.ts';
import { wildcardGrants } from './wildcard-grants.ts';

const [dir, flag] = process.argv.slice(2);
if (!dir) throw new Error('usage: node test/iam/check.ts <records dir> [--all-tests-ran]');
const allTestsRan = flag === '--all-tests-ran';

const lines = new Set(
  readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) => readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean)),
);
const recorded = [...lines].map((line) => JSON.parse(line) as RecordedCall);

const model = stackModel();
const requests = [...recorded.map((call) => requestOfRecorded(model, call)), ...lambdaOnlyCalls(model), ...serviceCalls(model)];
const evaluated = await Promise.all(requests.map((request) => evaluate(model, request)));
const denied = evaluated.filter((call) => call.result !== 'Allowed');
const distinct = new Set(evaluated.map((call) => `${call.principal} ${call.action} ${call.resource}`)).size;

const out: string[] = [];
out.push(
  `IAM check (@cloud-copilot/iam-simulate on the synthesized template): ${evaluated.length} calls, ${distinct} distinct role-action-resource ` +
    `(${recorded.length} recorded in the handler tests, ${lambdaOnlyCalls(model).length} made only in Lambda, ${serviceCalls(model).length} by AWS services)`,
);
for (const call of denied) {
  out.push(`  DENIED (${call.result}): ${call.action} on ${call.resource}${call.context && Object.keys(call.context).length ? ` ${JSON.stringify(call.context)}` : ''} - ${call.why}`);
}

const review = reviewGrants(grantsOf(model, checkedRoles(model)), evaluated.filter((call) => call.result === 'Allowed'), {
  unexercised: unexercisedGrants,
  wildcards: wildcardGrants(model),
});
// Wildcard grants are the template's alone: they are checked on any run.
const unexplained = [...review.unnamedWildcards.map((grant) => grant.label), ...review.staleWildcards];
for (const grant of review.unnamedWildcards) out.push(`  WILDCARD GRANT, NOT NAMED: ${grant.label} (narrow it, or name it with a reason in test/iam/wildcard-grants.ts)`);
for (const label of review.staleWildcards) out.push(`  named in test/iam/wildcard-grants.ts but narrowed or gone: ${label}`);
if (allTestsRan) {
  for (const grant of review.keptUnused) out.push(`  granted, not used, kept: ${grant.label} - ${unexercisedGrants[grant.label]}`);
  for (const grant of review.unused) out.push(`  GRANTED, NEVER USED: ${grant.label} (remove the grant, or name it with a reason in test/iam/unexercised-grants.ts)`);
  for (const label of review.staleUnexercised) out.push(`  named in test/iam/unexercised-grants.ts but used or gone: ${label}`);
  unexplained.push(...review.unused.map((grant) => grant.label), ...review.staleUnexercised);
} else {
  out.push('  (part of the suite ran: grants no call used are only listed after a whole `npm test`)');
}
const ok = denied.length === 0 && unexplained.length === 0;
out.push(ok ? '  every call allowed, every wildcard grant named' + (allTestsRan ? ', every grant used or named' : '') : '  IAM check FAILED');
process.stdout.write(`${out.join('\n')}\n`);
process.exitCode = ok ? 0 : 1;
