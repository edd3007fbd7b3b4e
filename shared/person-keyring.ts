/**
 * The secret of the person lookup hashes (shared/domain/person-data.ts), read once per container: in
 * AWS the Secrets Manager secret the stack generates (PERSON_KEY_SECRET_ARN), locally PERSON_KEY_SECRET
 * or, for `npm start` and the tests, a fixed local value. The secret must never change once leads are
 * stored: lookup items written under another secret would no longer be found. Never logged.
 *
 * The one GetSecretValue is a signed HTTPS request of its own (shared/aws/signed-json.ts) rather than
 * the Secrets Manager SDK client: every lead function reads it, and the client would take their bundles
 * past the cold-start budget (docs/performance.md) for one call per container.
 */
import { awsJsonCall } from './aws/signed-json.ts';
import { hmacKeyring, type PersonKeyring } from './domain/person-data.ts';

export const personKeySettings = {
  /** ARN of the Secrets Manager secret (AWS). */
  secretArn: 'PERSON_KEY_SECRET_ARN',
  /** The secret itself, for a local run that wants its own. */
  secret: 'PERSON_KEY_SECRET',
} as const;

/** Only where no secret is configured and the code does not run in Lambda: DynamoDB Local's data is not personal data. */
export const LOCAL_PERSON_KEY_SECRET = 'lead-intake local person-lookup secret (not for AWS)';

/** How long the secret's read may take: it happens once per container, inside a request's deadline. */
const READ_TIMEOUT_MS = 2_000;

/**
 * GetSecretValue of one secret, signed with the function's role credentials (from the environment, as
 * Lambda sets them). `endpoint` is Secrets Manager's regional endpoint unless a test names another.
 */
export const readSecretString = async (secretId: string, region: string, endpoint?: string): Promise<string> => {
  const answer = await awsJsonCall<{ SecretString?: string }>({
    service: 'secretsmanager',
    target: 'secretsmanager.GetSecretValue',
    region,
    body: { SecretId: secretId },
    timeoutMs: READ_TIMEOUT_MS,
    ...(endpoint && { endpoint }),
  });
  if (!answer.SecretString) throw new Error('the person lookup secret is empty');
  return answer.SecretString;
};

/**
 * The keyring of the environment. In Lambda without PERSON_KEY_SECRET_ARN it refuses to hash (the
 * request fails with a 500 and the logs say why) rather than key personal data with a public value.
 */
export const personKeyringFromEnvironment = (
  env: NodeJS.ProcessEnv = process.env,
  /** How the secret is read from Secrets Manager: the signed request of the functions, or an SDK client (the admin CLI). */
  readSecret: (arn: string, region: string) => Promise<string> = readSecretString,
): PersonKeyring =>
  hmacKeyring(async () => {
    const arn = env[personKeySettings.secretArn];
    if (arn) return readSecret(arn, env.AWS_REGION ?? arn.split(':')[3]!);
    if (env[personKeySettings.secret]) return env[personKeySettings.secret]!;
    if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${personKeySettings.secretArn} is not set`);
    return LOCAL_PERSON_KEY_SECRET;
  });

let containerKeyring: PersonKeyring | undefined;

/** The container's one keyring: the secret is read once, by whichever store needs it first. */
export const containerPersonKeyring = (): PersonKeyring => (containerKeyring ??= personKeyringFromEnvironment());
