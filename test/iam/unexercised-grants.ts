/**
 * Grants no recorded or declared call uses, each kept for a reason the IAM check cannot see. A grant
 * that is neither used nor named here fails the check (test/iam/reporter.ts): remove it, or say here
 * why it must stay. Keys are the check's labels: `<role>: <action> on <resource>`, account and region
 * left out.
 */
export const unexercisedGrants: Readonly<Record<string, string>> = {};
