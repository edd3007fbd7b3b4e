/**
 * One call of an AWS JSON-protocol API (Secrets Manager, KMS) as a single SigV4-signed HTTPS request,
 * with the function's role credentials from the environment (as Lambda sets them) and the signer the
 * DynamoDB client already carries. The lead functions make one such call per container (a secret to
 * read, a secret to open): the SDK clients for them would take their bundles past the cold-start budget
 * (docs/performance.md). Errors name the service's error type and HTTP status only, never the request.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from './node-sha256.ts';

export interface AwsJsonCall {
  /** The signing name and endpoint prefix: `secretsmanager`, `kms`. */
  readonly service: string;
  /** The X-Amz-Target: `secretsmanager.GetSecretValue`, `TrentService.Decrypt`. */
  readonly target: string;
  readonly region: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** How long the call may take, its answer read included. */
  readonly timeoutMs: number;
  /** The service's regional endpoint unless a test names another. */
  readonly endpoint?: string;
}

/** The service's answer, parsed; throws on a refusal (`<service> refused <target>: HTTP <status> <type>`). */
export const awsJsonCall = async <T>({ service, target, region, body, timeoutMs, endpoint = `https://${service}.${region}.amazonaws.com` }: AwsJsonCall): Promise<T> => {
  const url = new URL(endpoint);
  const text = JSON.stringify(body);
  const signer = new SignatureV4({ credentials: fromEnv(), region, service, sha256: NodeSha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port && { port: Number(url.port) }),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
    body: text,
  });
  const response = await fetch(new URL('/', url), { method: 'POST', headers: signed.headers, body: text, signal: AbortSignal.timeout(timeoutMs) });
  const answer = (await response.json().catch(() => ({}))) as T & { __type?: string };
  if (!response.ok) throw new Error(`${service} refused ${target}: HTTP ${response.status} ${answer.__type ?? ''}`.trim());
  return answer;
};
