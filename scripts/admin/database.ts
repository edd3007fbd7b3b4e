/**
 * The database an admin command works on: local when DYNAMODB_ENDPOINT is set (tables default to
 * those of `npm start`), else AWS with the default credential chain and the stack's table names.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hmacKeyring } from '../../shared/domain/person-data.ts';
import { personKeySettings } from '../../shared/person-keyring.ts';
import { createDocumentClient } from '../../shared/dynamodb/client.ts';
import { DynamoDbRepository } from '../../shared/dynamodb/repository.ts';
import { configTable, leadsTable } from '../../shared/dynamodb/tables.ts';
import { runtimeSettings } from '../../shared/routes.ts';
import { localTableNames } from '../local/environment.ts';
import { CommandError } from './command.ts';

export interface AdminDatabase {
  /** Where it is, for error messages. */
  readonly endpoint: string;
  readonly repository: () => DynamoDbRepository;
}

/**
 * The AWS region of the deployed stack, as the SDK finds it (AWS_REGION, or the `region` of the AWS
 * profile). Without one the SDK would be handed a made-up region and look up a host that does not
 * exist, so the CLI says what is missing instead.
 */
export const awsRegion = async (env: NodeJS.ProcessEnv): Promise<string> => {
  if (env.AWS_REGION) return env.AWS_REGION;
  try {
    return await new DynamoDBClient({}).config.region();
  } catch {
    const profile = env.AWS_PROFILE ? ` (the AWS profile ${JSON.stringify(env.AWS_PROFILE)} names none)` : '';
    throw new CommandError(
      `no AWS region${profile}: set AWS_REGION to the deployed stack's region, or a region in your AWS profile; or DYNAMODB_ENDPOINT for a local DynamoDB`,
    );
  }
};

export const databaseFor = async (env: NodeJS.ProcessEnv): Promise<AdminDatabase> => {
  const local = env[runtimeSettings.dynamodbEndpoint];
  if (local) {
    return { endpoint: local, repository: () => new DynamoDbRepository(createDocumentClient({ endpoint: local }), localTableNames(env)) };
  }
  const config = env[configTable.envVar];
  const leads = env[leadsTable.envVar];
  if (!config || !leads) {
    throw new CommandError(
      `set ${configTable.envVar} and ${leadsTable.envVar} to the deployed stack's table names (its outputs ConfigTableName and LeadsTableName), or DYNAMODB_ENDPOINT for a local DynamoDB`,
    );
  }
  const region = await awsRegion(env);
  // The deployed lookup key, read with the operator's credentials; never the local one (access and
  // erasure would find no one, and answer zeros). Asked for only by a command that hashes a person.
  const keyring = hmacKeyring(async () => {
    const arn = env[personKeySettings.secretArn];
    if (!arn) throw new CommandError(`set ${personKeySettings.secretArn} to the deployed stack's output PersonKeySecretArn`);
    const { SecretString } = await new SecretsManagerClient({ region }).send(new GetSecretValueCommand({ SecretId: arn }));
    if (!SecretString) throw new CommandError('the person lookup secret is empty');
    return SecretString;
  });
  const repository = () => new DynamoDbRepository(createDocumentClient({ region }), { config, leads }, undefined, undefined, keyring);
  return { endpoint: `https://dynamodb.${region}.amazonaws.com`, repository };
};
