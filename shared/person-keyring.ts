/**
 * The secret of the person lookup hashes (shared/domain/person-data.ts), read once per container: in
 * AWS the Secrets Manager secret the stack generates (PERSON_KEY_SECRET_ARN), locally PERSON_KEY_SECRET
 * or, for `npm start` and the tests, a fixed local value. The secret must never change once leads are
 * stored: lookup items written under another secret would no longer be found. Never logged.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hmacKeyring, type PersonKeyring } from './domain/person-data.ts';

export const personKeySettings = {
  /** ARN of the Secrets Manager secret (AWS). */
  secretArn: 'PERSON_KEY_SECRET_ARN',
  /** The secret itself, for a local run that wants its own. */
  secret: 'PERSON_KEY_SECRET',
} as const;

/** Only where no secret is configured and the code does not run in Lambda: DynamoDB Local's data is not personal data. */
export const LOCAL_PERSON_KEY_SECRET = 'lead-intake local person-lookup secret (not for AWS)';

/**
 * The keyring of the environment. In Lambda without PERSON_KEY_SECRET_ARN it refuses to hash (the
 * request fails with a 500 and the logs say why) rather than key personal data with a public value.
 */
export const personKeyringFromEnvironment = (env: NodeJS.ProcessEnv = process.env, client?: SecretsManagerClient): PersonKeyring =>
  hmacKeyring(async () => {
    const arn = env[personKeySettings.secretArn];
    if (!arn) {
      if (env[personKeySettings.secret]) return env[personKeySettings.secret]!;
      if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error(`${personKeySettings.secretArn} is not set`);
      return LOCAL_PERSON_KEY_SECRET;
    }
    const secrets = client ?? new SecretsManagerClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 } });
    const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    if (!SecretString) throw new Error('the person lookup secret is empty');
    return SecretString;
  });

let containerKeyring: PersonKeyring | undefined;

/** The container's one keyring: the secret is read once, by whichever store needs it first. */
export const containerPersonKeyring = (): PersonKeyring => (containerKeyring ??= personKeyringFromEnvironment());
