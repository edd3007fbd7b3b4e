/**
 * `LEAD_INTAKE_SMOKE_KEY=... npm run smoke -- --base-url URL [--account ID] [--region REGION] [--write]`
 * (or the key on standard input with `--key-stdin`): the check an operator runs against the real URL
 * right after `cdk deploy` (docs/deployment.md, "Smoke test after deploy"), and against `npm start` too.
 * The key is never an argument: npm prints the whole command line in its header, into every CI log, and
 * shells and process lists keep it too; `--key VALUE` is refused, the value not repeated.
 *
 * By default it stores nothing: the website preflight, a dry run on each of the four endpoints, their
 * 401s (no key, a wrong key), a wrong Google key and a wrong Meta verify token refused, an unsigned
 * admin call refused, and an admin read signed with the default AWS credential chain (the account's
 * settings with --account, else a made-up account that must answer the service's own 404: the signature
 * got through). With --write (needs --account) it stores one lead on the portal A endpoint, finds it
 * through the person-access route, and erases it.
 *
 * One line per check; exit 0 only when every check passes, 1 otherwise, 2 on bad arguments; `--help`
 * prints the usage.
 */
import { parseArgs } from 'node:util';
import { randomInt, randomUUID } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../shared/aws/node-sha256.ts';
import { ADMIN_BASE_PATH, type EndpointName } from '../shared/routes.ts';
import { leadRoutes, leadSources } from '../shared/sources/registry.ts';

const REQUEST_TIMEOUT_MS = 15_000;

export interface SmokeOptions {
  readonly baseUrl: string;
  readonly key: string;
  readonly account?: string;
  readonly region?: string;
  readonly write: boolean;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/** Where the key comes from when `--key-stdin` is not given. */
export const SMOKE_KEY_VARIABLE = 'LEAD_INTAKE_SMOKE_KEY';

const usage = [
  `usage: ${SMOKE_KEY_VARIABLE}=KEY npm run smoke -- --base-url URL [--account ID] [--region REGION] [--write]`,
  '       printf %s "$KEY" | npm run smoke -- --base-url URL --key-stdin [--account ID] [--region REGION] [--write]',
  '',
  '  --base-url URL   the API (the stack output BaseUrl, or http://127.0.0.1:3000 for npm start)',
  `  --key-stdin      read the account's API key from standard input instead of ${SMOKE_KEY_VARIABLE}`,
  "  --account ID     the key's account: its project and sub sources make the dry runs go all the way",
  "  --region REGION  the region admin requests are signed for (default: the execute-api host's)",
  '  --write          also store one lead on portala, find it through person access and erase it (needs --account)',
  '',
  "The key is never an argument: npm prints the command line in its header.",
].join('\n');

/** The API's region: from the execute-api host name, else AWS_REGION (a local server takes any). */
const regionOf = (baseUrl: string, region?: string) =>
  region ?? /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(baseUrl).hostname)?.[1] ?? process.env.AWS_REGION ?? 'us-east-1';

export const runSmoke = async (options: SmokeOptions, print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<boolean> => {
  const base = options.baseUrl.replace(/\/+$/, '');
  const region = regionOf(base, options.region);
  let allPassed = true;

  const send = async (method: string, path: string, { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> => {
    const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body }), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text (the Meta challenge, an HTML error page)
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };

  /** A request signed with SigV4 for execute-api, with whatever credentials the default chain finds. */
  const signed = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const url = new URL(`${base}${path}`);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const signer = new SignatureV4({ credentials: defaultProvider(), region, service: 'execute-api', sha256: NodeSha256 });
    const request = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port && { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: url.host, ...(text !== undefined && { 'content-type': 'application/json' }) },
      ...(text !== undefined && { body: text }),
    });
    return send(method, `${url.pathname}${url.search}`, { headers: request.headers as Record<string, string>, ...(text !== undefined && { body: text }) });
  };

  /** Runs one check and prints its line: `ok` or `FAIL`, what was checked, and what came back when it failed. */
  const check = async (name: string, run: () => Promise<string | undefined>) => {
    let problem: string | undefined;
    try {
      problem = await run();
    } catch (error) {
      problem = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    if (problem) allPassed = false;
    print(problem ? `FAIL ${name}: ${problem}` : `ok   ${name}`);
  };
  const expectAnswer = (answer: Answer, status: number, message?: string) =>
    answer.status === status && (message === undefined || answer.body?.message === message)
      ? undefined
      : `answered ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}, expected ${status}${message ? ` "${message}"` : ''}`;

  // What the account offers a dry run: a project, its campaign and its sub sources (with --account).
  let account: { projects?: Array<{ id: string; campaigns?: Array<{ id: string }> }>; subSources?: { website?: string[]; social?: string[] } } | undefined;

  await check(`admin read signed with the default AWS credential chain (region ${region})`, async () => {
    const answer = await signed('GET', `${ADMIN_BASE_PATH}/accounts/${encodeURIComponent(options.account ?? `smoke-no-such-account-${randomUUID().slice(0, 8)}`)}`);
    if (!options.account) return expectAnswer(answer, 404, 'Account not found');
    account = answer.body;
    return expectAnswer(answer, 200);
  });
  await check('admin call without a signature refused', async () => expectAnswer(await send('GET', `${ADMIN_BASE_PATH}/accounts/smoke-unsigned`), 403));

  await check('website preflight allows x-api-key', async () => {
    const answer = await send('OPTIONS', leadRoutes.find((r) => r.endpoint === 'website')!.path, {
      headers: { origin: 'https://smoke-test.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
    });
    const allowed = answer.headers.get('access-control-allow-headers') ?? '';
    return answer.status < 300 && /x-api-key/i.test(allowed) ? undefined : `answered ${answer.status} with access-control-allow-headers "${allowed}"`;
  });

  const project = account?.projects?.find((p) => p.campaigns?.length);
  const mobile = () => `9${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  const leadBody = (endpoint: EndpointName, mobileNumber = mobile()) => ({
    name: 'Smoke Test',
    mobile_number: mobileNumber,
    projectID: project?.id ?? 'smoke-no-such-project',
    campaignID: project?.campaigns?.[0]?.id ?? 'smoke-no-such-campaign',
    ...(endpoint === 'website' && { sub_source: account?.subSources?.website?.[0] ?? 'smoke' }),
    ...(endpoint === 'social' && { platform: account?.subSources?.social?.[0] ?? 'fb' }),
    ...((endpoint === 'portala' || endpoint === 'portalb') && { notes: 'lead-intake smoke test' }),
  });
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    send('POST', path, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  for (const route of leadRoutes) {
    await check(`${route.endpoint}: no API key answers 401`, async () => expectAnswer(await post(route.path, leadBody(route.endpoint), {}), 401, 'API Key missing'));
    await check(`${route.endpoint}: a wrong API key answers 401`, async () =>
      expectAnswer(await post(route.path, leadBody(route.endpoint), { 'x-api-key': `smoke-wrong-${randomUUID()}` }), 401, 'Invalid API credentials'),
    );
    // Every check the lead would go through, nothing stored. Without the account's project the dry run
    // gets as far as the project lookup: the key, the account and the database all answered.
    await check(`${route.endpoint}: dry run with the key stores nothing`, async () => {
      const answer = await post(route.path, leadBody(route.endpoint), { 'x-api-key': options.key, 'x-dry-run': 'true' });
      if (project && (route.endpoint !== 'website' || account?.subSources?.website?.length) && (route.endpoint !== 'social' || account?.subSources?.social?.length)) {
        return answer.status === 200 && answer.body?.dry_run === true ? undefined : expectAnswer(answer, 200, 'Lead would be created');
      }
      return answer.status === 422 && /not found/.test(answer.body?.message ?? '') ? undefined : `answered ${answer.status} ${JSON.stringify(answer.body)}, expected 422 "... not found" (no --account to take a project from)`;
    });
  }

  // Each source's own refused request, as its descriptor declares it (`smoke`).
  for (const { route, smoke } of leadSources) {
    if (!smoke) continue;
    const fresh = (text: string) => text.replaceAll('{random}', randomUUID());
    await check(smoke.check, async () =>
      expectAnswer(
        await send(smoke.method, smoke.query === undefined ? route.path : `${route.path}?${fresh(smoke.query)}`, {
          ...(smoke.headers && { headers: { ...smoke.headers } }),
          ...(smoke.body !== undefined && { body: fresh(smoke.body) }),
        }),
        smoke.status,
        smoke.message,
      ),
    );
  }

  if (options.write) {
    const mobileNumber = mobile();
    const people = `${ADMIN_BASE_PATH}/accounts/${encodeURIComponent(options.account!)}`;
    let leadId: string | undefined;
    await check('write: one lead stored on portala', async () => {
      if (!project) return `account ${options.account} has no active project with a campaign to store the lead in`;
      const answer = await post(leadRoutes.find((r) => r.endpoint === 'portala')!.path, leadBody('portala', mobileNumber), { 'x-api-key': options.key });
      leadId = answer.body?.data?.lead_id;
      return answer.status === 200 && leadId ? undefined : expectAnswer(answer, 200, 'Lead created successfully');
    });
    await check('write: the lead found through person access', async () => {
      const answer = await signed('GET', `${people}/people?mobile_number=${mobileNumber}`);
      const found = (answer.body?.leads ?? []).some((lead: { lead_id?: string }) => lead.lead_id === leadId);
      return answer.status === 200 && found ? undefined : `answered ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}, expected 200 listing lead ${leadId}`;
    });
    await check('write: the lead erased, and no longer found', async () => {
      const erased = await signed('POST', `${people}/erasures`, { mobile_number: mobileNumber });
      if (erased.status !== 200 || erased.body?.leads !== 1) return `erasure answered ${erased.status} ${JSON.stringify(erased.body)}, expected 200 with "leads": 1`;
      const after = await signed('GET', `${people}/people?mobile_number=${mobileNumber}`);
      return after.status === 200 && after.body?.leads?.length === 0 ? undefined : `after the erasure, person access answered ${after.status} ${JSON.stringify(after.body)?.slice(0, 200)}`;
    });
  }
  return allPassed;
};

const readStdin = async (): Promise<string> => {
  if (process.stdin.isTTY) process.stderr.write('Paste the API key, then press Enter and Ctrl-D:\n');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
};

const main = async () => {
  const refuse = (message: string) => {
    process.stderr.write(`${message}\n${usage}\n`);
    return 2;
  };
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      options: {
        'base-url': { type: 'string' },
        // Declared only to refuse it with its own message: parseArgs would otherwise call it unknown.
        key: { type: 'string' },
        'key-stdin': { type: 'boolean', default: false },
        account: { type: 'string' },
        region: { type: 'string' },
        write: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      // Taken, then refused without echoing them: a stray argument may be the key.
      allowPositionals: true,
    }));
  } catch (error) {
    return refuse((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (values.key !== undefined) {
    return refuse(
      `--key is refused: a key on the command line is printed in npm's header (and kept in shell history and process lists). ` +
        `Pass it in ${SMOKE_KEY_VARIABLE}, or on standard input with --key-stdin.`,
    );
  }
  if (positionals.length > 0) return refuse(`smoke takes no positional arguments (${positionals.length} given, not repeated here)`);
  if (!values['base-url']) return refuse('--base-url is required');
  if (values.write && !values.account) return refuse('--write needs --account (the account of the key)');
  const key = values['key-stdin'] ? await readStdin() : (process.env[SMOKE_KEY_VARIABLE] ?? '').trim();
  if (!key) return refuse(values['key-stdin'] ? 'standard input held no key' : `no key: set ${SMOKE_KEY_VARIABLE}, or pass it on standard input with --key-stdin`);
  const passed = await runSmoke({
    baseUrl: values['base-url'],
    key,
    write: values.write!,
    ...(values.account && { account: values.account }),
    ...(values.region && { region: values.region }),
  });
  return passed ? 0 : 1;
};

if (import.meta.main) process.exitCode = await main();
