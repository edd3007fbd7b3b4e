/**
 * The IAM check over a test run: `node test/iam/check.ts <records dir> [--all-tests-ran]`. Run by
 * test/iam/reporter.mjs once every test file has finished; exits 1 when a call is denied, or, when
 * the whole suite ran, when a granted action no call used is not named in ./unexercised-grants.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RecordedCall } from '../support/aws-calls.ts';
import { checkedRoles, evaluate, grantsOf, lambdaOnlyCalls, requestOfRecorded, serviceCalls, stackModel, unusedGrants } from './policy-check.ts';
import { unexercisedGrants } from './unexercised-grants.ts';

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

let unexplained: string[] = [];
if (allTestsRan) {
  const unused = unusedGrants(grantsOf(model, checkedRoles(model)), evaluated.filter((call) => call.result === 'Allowed'));
  unexplained = unused.map((grant) => grant.label).filter((label) => !(label in unexercisedGrants));
  for (const label of unused.map((grant) => grant.label).filter((label) => label in unexercisedGrants)) {
    out.push(`  granted, not used, kept: ${label} - ${unexercisedGrants[label]}`);
  }
  for (const label of unexplained) out.push(`  GRANTED, NEVER USED: ${label} (remove the grant, or name it with a reason in test/iam/unexercised-grants.ts)`);
  for (const label of Object.keys(unexercisedGrants).filter((label) => !unused.some((grant) => grant.label === label))) {
    out.push(`  named in test/iam/unexercised-grants.ts but used or gone: ${label}`);
    unexplained.push(label);
  }
} else {
  out.push('  (part of the suite ran: grants no call used are only listed after a whole `npm test`)');
}
const ok = denied.length === 0 && unexplained.length === 0;
out.push(ok ? '  every call allowed' + (allTestsRan ? ', every grant used or named' : '') : '  IAM check FAILED');
process.stdout.write(`${out.join('\n')}\n`);
process.exitCode = ok ? 0 : 1;
