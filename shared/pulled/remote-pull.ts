/**
 * A pull asked for now (`pull-portal`, the admin API's `POST .../pull`) run by the pull function in AWS,
 * so that it reaches the portal from the stack's one allow-listed address (lib/constructs/portal-pulls.ts),
 * not from the admin function's or the operator's. One SigV4-signed Lambda Invoke (RequestResponse) with
 * the caller's credentials; the function answers its summary, or why it did not pull. Without
 * PORTAL_PULL_FUNCTION_NAME (npm start, the tests) the pull runs in the caller's process.
 */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../aws/node-sha256.ts';
import { PortalLoginNotFoundError } from './logins.ts';
import { PortalPullBusyError, type PullRefusal, type PullSummary } from './pull.ts';

/** The stack's pull function, named to the admin function and, from the stack's outputs, to the CLI. */
export const PORTAL_PULL_FUNCTION_NAME = 'PORTAL_PULL_FUNCTION_NAME';

/** What the pull function is invoked with for a pull now, and what it answers. */
export interface PullNowRequest {
  readonly pull_now: { readonly account_id: string; readonly portal: string; readonly login: string };
}
export type PullNowAnswer = { readonly summary: PullSummary } | { readonly refused: PullRefusal };

export const isPullNowRequest = (event: unknown): event is PullNowRequest => {
  const asked = (event as Partial<PullNowRequest> | null)?.pull_now;
  return typeof asked === 'object' && asked !== null && [asked.account_id, asked.portal, asked.login].every((value) => typeof value === 'string');
};

/** One pull now of an account's login: its summary, or PortalPullBusyError / PortalLoginNotFoundError as a local pull throws them. */
export type PullNow = (accountId: string, portal: string, login: string) => Promise<PullSummary>;

/** A pull now through the pull function: a pull takes at most its 4-minute timeout, so the call waits that long. */
export const pullThroughFunction = ({ functionName, region, credentials, endpoint = `https://lambda.${region}.amazonaws.com` }: { functionName: string; region: string; credentials: AwsCredentialIdentityProvider; endpoint?: string }): PullNow =>
  async (accountId, portal, login) => {
    const url = new URL(`/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`, endpoint);
    const body = JSON.stringify({ pull_now: { account_id: accountId, portal, login } } satisfies PullNowRequest);
    const signer = new SignatureV4({ credentials, region, service: 'lambda', sha256: NodeSha256 });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port && { port: Number(url.port) }),
      path: url.pathname,
      headers: { host: url.host, 'content-type': 'application/json', 'x-amz-invocation-type': 'RequestResponse' },
      body,
    });
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(5 * 60_000) });
    const text = await response.text();
    // A refusal of the invoke itself, or the function's own failure: its type only, never the request.
    if (!response.ok) throw new Error(`lambda refused Invoke: HTTP ${response.status}`);
    if (response.headers.get('x-amz-function-error')) throw new Error(`the pull function failed (${response.headers.get('x-amz-function-error')})`);
    const answer = JSON.parse(text) as PullNowAnswer;
    if ('summary' in answer) return answer.summary;
    if (answer.refused === 'busy') throw new PortalPullBusyError(login);
    throw new PortalLoginNotFoundError(portal, login);
  };
