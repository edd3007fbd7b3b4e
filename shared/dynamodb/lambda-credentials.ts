/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias in
 * lib/constructs/lead-function.ts). Lambda always puts the function role's credentials in the
 * environment, so the SDK's default chain (ini files, SSO, web identity, instance metadata, and the
 * STS and SSO clients they bring) is dead weight there: dropping it takes the bundle from about 368 KB
 * to about 236 KB and the cold import from about 318 ms to about 123 ms (docs/performance.md).
 * Locally and in the tests the real default chain is used.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = () => fromEnv();
