// The proposed Lambda credential provider, for the cold-start comparison only: a Lambda function's
// credentials are always in its environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN), so the bundle can replace the SDK's default chain (ini files, SSO, web identity,
// IMDS, and the STS/SSO clients they bring) with the environment provider alone.
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = () => fromEnv();
