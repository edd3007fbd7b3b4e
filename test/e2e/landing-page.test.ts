/**
 * The landing-page form (examples/landing-page/) in headless Chromium against `npm start`: the page is
 * served from another origin than the API, so every submission is a real cross-origin request with its
 * CORS preflight. The form uses a browser key (origins: the page's origin only) on a service whose
 * stack-wide CORS setting is the default `*`, so the key alone decides. Fill, submit, see the success; the
 * same mobile again is a duplicate; an invalid mobile shows its error next to the field; the same page on
 * another origin is refused by the key (403 Origin not allowed, which the page may not read) and the form
 * says so in words; a bot that fills the hidden honeypot field sees a success and nothing is stored; a retry of the same form after a lost answer or a 503 reuses its Idempotency-Key and stores the lead
 * once; the consent checkbox, ticked, sends the notice, the time it was ticked and the purposes, and when
 * the site makes it required, the form is not sent without it; and the stored lead carries the UTM values
 * and gclid of the page URL, and its consent.
 *
 * The browser is a system Chromium where there is one, else the one the @sparticuz/chromium package ships
 * (test/support/browser.ts): `npm ci && npm test` needs nothing but Node and Java.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type BrowserContext, type Page, type Route } from 'playwright-core';
import { freePort } from '../../scripts/dynamodb-local.ts';
import { projectRoot } from '../../scripts/local/environment.ts';
import { chromiumLaunch } from '../support/browser.ts';
import { waitFor, processesMatching, processGroup, killGroup } from '../support/processes.ts';

const PAGE_DIR = path.join(projectRoot, 'examples', 'landing-page');
const ARTIFACTS = path.join(projectRoot, 'test', 'e2e', 'artifacts');

const KEY = 'landing-page-e2e-key';
const ACCOUNT = 'acc-landing';
const PROJECT = 'PRJ-L';
const CAMPAIGN = 'CMP-L';
const SUB_SOURCE = 'Lakeside landing page';

const MESSAGES = {
  success: 'Thank you! We have received your details and will call you soon.',
  duplicate: 'You have already registered with this mobile number. Our team will call you soon.',
  invalidOne: 'Please correct the highlighted field.',
  network: 'We could not reach our server. Please check your internet connection and try again.',
  unreadable: 'Sorry, this form could not send your details from this page just now. Please try again in a minute or contact us directly.',
  busyFor7: 'We are very busy right now. Please try again in 7 seconds.',
  challenge: 'Please complete the check below and send again.',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-landing-'));
const seedFile = path.join(dir, 'seed.json');
/** The seed, once the page's origin is known: the form's key is a browser key for that origin alone. */
const writeSeed = (pageOrigin: string) =>
  writeFileSync(
    seedFile,
    JSON.stringify({
      accounts: [
        {
          id: ACCOUNT,
          name: 'Lakeside Realty',
          duplicateHandling: 'ignore',
          projects: [{ id: PROJECT, name: 'Lakeside', campaigns: [{ id: CAMPAIGN, name: 'Diwali' }] }],
          subSources: { website: [SUB_SOURCE], social: ['fb'] },
        },
      ],
      apiKeys: [{ key: KEY, accountId: ACCOUNT, keyId: 'key_landinge2e', label: 'Landing page', origins: [pageOrigin] }],
    }),
  );

/** Environment of a child: none of the test run's database settings. */
const childEnv = (extra: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { ...process.env, LEAD_INTAKE_DATA_DIR: ':memory:', LEAD_INTAKE_SEED: seedFile, ...extra };
  for (const name of ['DYNAMODB_ENDPOINT', 'CONFIG_TABLE_NAME', 'LEADS_TABLE_NAME', 'CONFIG_CACHE_TTL_SECONDS', 'CORS_ALLOWED_ORIGINS']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The landing page as a website would serve it: its files as they are, with the form's data
 * attributes set to this test's service (what a site owner edits when pasting the form).
 */
const STALE_PAGE = 'stale-api-base.html';

const staticServer = (config: Record<string, string>): Server =>
  createServer((request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    // STALE_PAGE: index.html still pointing at a service that is not running (data-api-base unchanged).
    const stale = pathname === `/${STALE_PAGE}`;
    const name = pathname === '/' || stale ? 'index.html' : pathname.slice(1);
    const type = CONTENT_TYPES[path.extname(name)];
    const file = path.join(PAGE_DIR, name);
    if (!type || path.dirname(file) !== PAGE_DIR || !existsSync(file)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let body = readFileSync(file, 'utf8');
    if (name === 'index.html') {
      for (const [attribute, value] of Object.entries({ ...config, ...(stale && { 'data-api-base': 'http://127.0.0.1:9' }) })) {
        const pattern = new RegExp(`${attribute}="[^"]*"`);
        if (!pattern.test(body)) throw new Error(`index.html has no ${attribute}`);
        body = body.replace(pattern, `${attribute}="${value}"`);
      }
    }
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });

describe('landing-page form in headless Chromium, against npm start', () => {
  let service: ChildProcess | undefined;
  let serviceExited: Promise<number | null>;
  let serviceOutput = '';
  let serviceErrors = '';
  let dynamoPort: number;
  let apiBase: string;
  let pageServer: Server | undefined;
  let pageOrigin: string;
  let pagePort: number;
  let profileDir: string;
  let browser: BrowserContext | undefined;
  let page: Page;

  const apiUrl = () => `${apiBase}/api/website-lead-create`;
  let firstKey: string | undefined;
  const message = () => page.locator('.lead-form__message');
  const mobile = () => page.getByLabel('Mobile number');
  const consentBox = () => page.getByRole('checkbox', { name: /I agree that Skyline Towers may call me/ });

  /** Clicks submit and waits for the API's answer and the message it leads to. */
  const submit = async (target: Page = page) => {
    const answer = target.waitForResponse((response) => response.url() === apiUrl() && response.request().method() === 'POST');
    await target.getByRole('button', { name: 'Request a call back' }).click();
    const response = await answer;
    await target.locator('.lead-form__message:not(:empty)').waitFor();
    return { status: response.status(), body: (await response.json()) as { status: boolean; message: string; errors?: Record<string, string[]> } };
  };

  beforeAll(async () => {
    // The page's server first: the form's key is made for exactly its origin.
    pagePort = await freePort();
    pageOrigin = `http://127.0.0.1:${pagePort}`;
    writeSeed(pageOrigin);
    const port = await freePort();
    dynamoPort = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    pageServer = staticServer({
      'data-api-base': apiBase,
      'data-api-key': KEY,
      'data-project': PROJECT,
      'data-campaign': CAMPAIGN,
      'data-sub-source': SUB_SOURCE,
    });
    await new Promise<void>((resolve) => pageServer!.listen(pagePort, '127.0.0.1', resolve));

    // Its own process group, so that whatever it leaves behind can be found and cleaned up.
    service = spawn('npm', ['start'], {
      cwd: projectRoot,
      env: childEnv({ PORT: String(port), DYNAMODB_PORT: String(dynamoPort) }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.on('data', (chunk) => (serviceOutput += chunk));
    service.stderr!.on('data', (chunk) => (serviceErrors += chunk));
    serviceExited = new Promise((resolve) => service!.on('exit', (code) => resolve(code)));

    mkdirSync(ARTIFACTS, { recursive: true });
    profileDir = mkdtempSync(path.join(tmpdir(), 'lead-intake-chromium-'));
    const { executablePath, args } = await chromiumLaunch();
    const launching = chromium.launchPersistentContext(profileDir, {
      executablePath,
      headless: true,
      args,
      viewport: { width: 720, height: 1000 },
      timezoneId: 'Asia/Kolkata', // the visitor's offset is in the consent's given_at
      timeout: 30_000,
    });
    await Promise.race([
      waitFor(() => serviceOutput.includes('Ctrl-C stops'), 'the npm start banner'),
      serviceExited.then((code) => Promise.reject(new Error(`npm start exited with ${code}: ${serviceErrors}`))),
    ]);
    browser = await launching;
    page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(`${pageOrigin}/?utm_source=google&utm_campaign=diwali&gclid=abc123`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    killGroup(service?.pid);
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
    rmSync(profileDir, { recursive: true, force: true });
  });

  it('sends the lead cross-origin and shows the success', async () => {
    await page.getByLabel('Name').fill('Priya Nair');
    await mobile().fill('+91 98450 12345');
    await page.getByLabel('Email').fill('priya@example.com');
    await page.getByLabel('Location').fill('Whitefield');
    await page.getByLabel('Profession').fill('Engineer');
    await page.getByLabel('Message').fill('3 BHK, east facing');
    const ticked = Date.now();
    await consentBox().check();
    const sent = page.waitForRequest((request) => request.url() === apiUrl() && request.method() === 'POST');

    const { status, body } = await submit();
    expect([status, body.message]).toEqual([200, 'Lead created successfully']);
    const request = await sent;
    // The consent the visitor gave by ticking the box: the notice shown, when (with their offset), the purposes.
    const { consent } = request.postDataJSON() as { consent: { notice: string; given_at: string; purposes: string[] } };
    expect(consent).toEqual({ notice: 'https://skyline.example/privacy-notice-v3', given_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/), purposes: ['site_visit', 'project_updates'] });
    expect(Math.abs(Date.parse(consent.given_at) - ticked)).toBeLessThan(60_000);
    expect((body as { data?: { consent?: unknown } }).data?.consent).toEqual(consent);
    expect(await consentBox().isChecked()).toBe(false); // cleared with the rest of the form
    expect(await request.allHeaders()).toMatchObject({ origin: pageOrigin, 'x-api-key': KEY, 'idempotency-key': expect.stringMatching(UUID) });
    firstKey = await request.headerValue('idempotency-key') ?? undefined;
    expect((await (await request.response())!.allHeaders())['access-control-allow-origin']).toBe(pageOrigin);

    expect(await message().textContent()).toBe(MESSAGES.success);
    expect(await message().getAttribute('role')).toBe('status');
    expect(await mobile().inputValue()).toBe(''); // the form is cleared for the next visitor
    await page.screenshot({ path: path.join(ARTIFACTS, 'landing-page-success.png'), fullPage: true });
  });

  it('says so when the same mobile is sent again (Lead already exists)', async () => {
    await page.getByLabel('Name').fill('Priya N.');
    await mobile().fill('98450 12345');
    const sent = page.waitForRequest((request) => request.url() === apiUrl() && request.method() === 'POST');
    const { status, body } = await submit();
    expect([status, body.message]).toEqual([422, 'Lead already exists']);
    expect(await message().textContent()).toBe(MESSAGES.duplicate);
    // Reassuring, so styled as a notice: not the error style of a refusal.
    expect(await message().getAttribute('class')).toBe('lead-form__message lead-form__message--notice');
    // Not ticked this time: no consent is sent.
    expect((await sent).postDataJSON()).not.toHaveProperty('consent');
    // A new Idempotency-Key after a success: other values, another submission.
    const key = await (await sent).headerValue('idempotency-key');
    expect(key).toMatch(UUID);
    expect(key).not.toBe(firstKey);
  });

  it('shows an invalid mobile number next to the mobile field', async () => {
    await page.getByLabel('Name').fill('Arjun Rao');
    await mobile().fill('12345');
    const { status, body } = await submit();
    expect(status).toBe(422);
    expect(Object.keys(body.errors ?? {})).toEqual(['mobile_number']);

    const error = page.locator('#lf-mobile-error');
    expect(await error.isVisible()).toBe(true);
    expect(await error.textContent()).toBe('Mobile number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9');
    expect(await mobile().getAttribute('aria-invalid')).toBe('true');
    expect((await mobile().getAttribute('aria-describedby'))?.split(' ')).toEqual(['lf-mobile-hint', 'lf-mobile-error']);
    expect(await page.evaluate('document.activeElement.id')).toBe('lf-mobile');
    expect(await message().textContent()).toBe(MESSAGES.invalidOne);
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBeNull();

    await page.screenshot({ path: path.join(ARTIFACTS, 'landing-page.png'), fullPage: true });

    // Correcting the field clears its error.
    await mobile().fill('9845012346');
    expect(await mobile().getAttribute('aria-invalid')).toBeNull();
    expect(await error.isVisible()).toBe(false);
  });

  it("is refused on a page of another origin by the browser key's origins, and says so in words", async () => {
    const other = await browser!.newPage();
    try {
      // Same files, another origin: http://localhost:<port> is not http://127.0.0.1:<port>. The stack
      // allows any origin (its preflight passes); the key does not.
      await other.goto(`http://localhost:${pagePort}/`);
      await other.getByLabel('Name').fill('Someone Else');
      await other.getByLabel('Mobile number').fill('9000000009');
      const failed = other.waitForEvent('requestfailed', (request) => request.url() === apiUrl() && request.method() === 'POST');
      await other.getByRole('button', { name: 'Request a call back' }).click();
      await failed;
      await other.locator('.lead-form__message:not(:empty)').waitFor();
      expect(await other.locator('.lead-form__message').textContent()).toBe(MESSAGES.unreadable);
      // The service refused it: its request log line says why (the page itself may not read the 403).
      const refused = serviceOutput.split('\n').filter((line) => line.includes('"outcome":"origin_not_allowed"'));
      expect(refused).toHaveLength(1);
      expect(JSON.parse(refused[0]!)).toMatchObject({ status: 403, endpoint: 'website', accountId: ACCOUNT });
    } finally {
      await other.close();
    }
  });

  it('follows npm start on another PORT when the local page names it with ?api_base=', async () => {
    const other = await browser!.newPage();
    try {
      // The page as shipped points at a service that is not there (port 9, the discard port, stands for
      // the default 3000 that another PORT leaves empty); the address names the running one.
      await other.goto(`${pageOrigin}/${STALE_PAGE}?api_base=${encodeURIComponent(apiBase)}`);
      expect(await other.locator('form[data-lead-form]').getAttribute('data-api-base')).toBe('http://127.0.0.1:9');
      await other.getByLabel('Name').fill('Nikhil Rao');
      await other.getByLabel('Mobile number').fill('9845012377');
      const answer = other.waitForResponse((response) => response.url() === apiUrl() && response.request().method() === 'POST');
      await other.getByRole('button', { name: 'Request a call back' }).click();
      expect((await answer).status()).toBe(200);
      await other.locator('.lead-form__message:not(:empty)').waitFor();
      expect(await other.locator('.lead-form__message').textContent()).toBe(MESSAGES.success);
    } finally {
      await other.close();
    }
  });

  it('answers a bot that fills the hidden honeypot field as a success, and stores nothing', async () => {
    // Hidden from people and from assistive technology ...
    expect(await page.getByRole('textbox', { name: 'Company website' }).count()).toBe(0);
    // A name and label no autofill heuristic matches, autocomplete off.
    const trap = page.locator('[data-honeypot="company_website"]');
    expect(await trap.getAttribute('name')).not.toMatch(/company|website|url|name|mail|phone|tel|address/i);
    expect(await trap.getAttribute('autocomplete')).toBe('off');
    const box = await trap.boundingBox();
    expect(box!.x + box!.width).toBeLessThan(0);
    // ... and filled by a bot that fills every input it finds.
    await page.getByLabel('Name').fill('Spam Bot');
    await mobile().fill('9845012399');
    await page.evaluate("document.querySelector('[data-honeypot]').value = 'https://cheap-seo.example'");
    const { status, body } = await submit();
    expect([status, body.message]).toEqual([200, 'Lead created successfully']);
    expect(await message().textContent()).toBe(MESSAGES.success);
    // npm start writes its log line before it answers, but the pipe may deliver it after the answer: wait for the line itself.
    await waitFor(() => serviceOutput.includes('"outcome":"honeypot"'), 'the honeypot log line', 10_000);
  });

  /** Intercepts the form's POSTs: `first` handles the first one, the others go to the service; the keys sent. */
  const interceptPosts = async (first: (route: Route) => Promise<void>) => {
    const keys: (string | undefined)[] = [];
    await page.route(apiUrl(), async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push(route.request().headers()['idempotency-key']);
      return keys.length === 1 ? first(route) : route.fallback();
    });
    return keys;
  };

  it('sends the same Idempotency-Key again after a lost answer, and gets the first answer: one lead', async () => {
    await page.getByLabel('Name').fill('Kiran Das');
    await mobile().fill('9845012347');
    const keys = await interceptPosts(async (route) => {
      const delivered = await route.fetch(); // the service stores the lead ...
      expect(delivered.status()).toBe(200);
      await route.abort('connectionreset'); // ... and its answer never reaches the page
    });
    try {
      const failed = page.waitForEvent('requestfailed', (request) => request.url() === apiUrl());
      await page.getByRole('button', { name: 'Request a call back' }).click();
      await failed;
      await page.locator('.lead-form__message:not(:empty)').waitFor();
      // The server was reachable, but its answer was lost: the form cannot tell that from an answer it
      // may not read, and asks to try again.
      expect(await message().textContent()).toBe(MESSAGES.unreadable);

      const replayed = page.waitForResponse((response) => response.url() === apiUrl() && response.request().method() === 'POST');
      const { status, body } = await submit();
      expect([status, body.message]).toEqual([200, 'Lead created successfully']);
      expect((await (await replayed).allHeaders())['idempotent-replayed']).toBe('true');
      expect(await message().textContent()).toBe(MESSAGES.success);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(UUID);
      expect(keys[1]).toBe(keys[0]);
    } finally {
      await page.unrouteAll();
    }
  });

  it("shows a 503's Retry-After, and a retry of the same form reuses its key", async () => {
    await page.getByLabel('Name').fill('Lata Menon');
    await mobile().fill('9845012348');
    const keys = await interceptPosts(async (route) => {
      // The service is sent a dry run, which a browser key may not make: it stores nothing and answers
      // 403 with the service's own CORS headers for the key's origin. That answer becomes a 503: the page
      // must be allowed to read its Retry-After.
      const checked = await route.fetch({ headers: { ...route.request().headers(), 'x-dry-run': 'true' } });
      const headers = Object.fromEntries(Object.entries(checked.headers()).filter(([name]) => name !== 'content-length'));
      await route.fulfill({
        status: 503,
        headers: { ...headers, 'retry-after': '7' },
        body: JSON.stringify({ status: false, message: 'Service temporarily unavailable, please retry' }),
      });
    });
    try {
      expect((await submit()).status).toBe(503);
      expect(await message().textContent()).toBe(MESSAGES.busyFor7);

      const { status, body } = await submit();
      expect([status, body.message]).toEqual([200, 'Lead created successfully']);
      expect(await message().textContent()).toBe(MESSAGES.success);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
    } finally {
      await page.unrouteAll();
    }
  });

  it('keeps its Idempotency-Key after a refused challenge: a new token is not a new value, so the refusal’s quarantine and the retry are one lead', async () => {
    await page.getByLabel('Name').fill('Meera Iyer');
    await mobile().fill('9845012349');
    // What a challenge widget does: its token in a hidden field of its own, a new one after each check.
    const token = (value: string) =>
      page.evaluate(`(() => {
        const form = document.querySelector('form[data-lead-form]');
        const field = form.querySelector('[name="cf-turnstile-response"]') ?? form.appendChild(Object.assign(document.createElement('input'), { type: 'hidden', name: 'cf-turnstile-response' }));
        field.value = ${JSON.stringify(value)};
      })()`);
    await token('token-refused');
    const keys = await interceptPosts(async (route) => {
      // The service's own CORS headers for the key's origin (a dry run, refused 403, stores nothing), on a refused challenge's answer.
      const checked = await route.fetch({ headers: { ...route.request().headers(), 'x-dry-run': 'true' } });
      const headers = Object.fromEntries(Object.entries(checked.headers()).filter(([name]) => name !== 'content-length'));
      await route.fulfill({ status: 403, headers, body: JSON.stringify({ status: false, message: 'Captcha verification failed' }) });
    });
    try {
      expect((await submit()).status).toBe(403);
      expect(await message().textContent()).toBe(MESSAGES.challenge);

      await token('token-solved-again');
      const { status, body } = await submit();
      expect([status, body.message]).toEqual([200, 'Lead created successfully']);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
    } finally {
      await page.unrouteAll();
    }
  });

  it('is not sent while a consent checkbox the site made required is unticked, and says so under the box', async () => {
    const other = await browser!.newPage();
    try {
      await other.goto(`${pageOrigin}/`);
      await other.evaluate("document.querySelector('#lf-consent').required = true");
      const posts: string[] = [];
      other.on('request', (request) => void (request.url() === apiUrl() && request.method() === 'POST' && posts.push(request.url())));
      await other.getByLabel('Name').fill('Rohan Pillai');
      await other.getByLabel('Mobile number').fill('9845012350');
      await other.getByRole('button', { name: 'Request a call back' }).click();
      const error = other.locator('#lf-consent-error');
      await error.waitFor();
      expect(await error.textContent()).toBe('Please tick this box to send your details.');
      expect(await other.locator('#lf-consent').getAttribute('aria-invalid')).toBe('true');
      expect(await other.locator('.lead-form__message').textContent()).toBe(MESSAGES.invalidOne);
      // Ticking the box clears its error; the form is then sent, with the consent.
      await other.locator('#lf-consent').check();
      expect(await error.isVisible()).toBe(false);
      const answer = other.waitForResponse((response) => response.url() === apiUrl() && response.request().method() === 'POST');
      await other.getByRole('button', { name: 'Request a call back' }).click();
      const response = await answer;
      expect(response.status()).toBe(200);
      expect(response.request().postDataJSON()).toHaveProperty('consent.notice', 'https://skyline.example/privacy-notice-v3');
      expect(posts).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('stored each lead once, with the UTM values and gclid of the page URL, and the consent given', () => {
    const stdout = execFileSync('npm', ['run', '-s', 'admin', '--', 'leads', '--account', ACCOUNT, '--json'], {
      cwd: projectRoot,
      env: { ...childEnv({}), DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}` },
      encoding: 'utf8',
    });
    const leads = JSON.parse(stdout) as Record<string, unknown>[];
    expect(leads.map((lead) => lead.mobile_number)).toEqual(['9845012345', '9845012377', '9845012347', '9845012348', '9845012349', '9845012350']);
    expect(leads[0]).toMatchObject({
      name: 'Priya Nair',
      mobile_number: '9845012345',
      email: 'priya@example.com',
      projectID: PROJECT,
      campaignID: CAMPAIGN,
      source: 'website',
      sub_source: SUB_SOURCE,
      location: 'Whitefield',
      profession: 'Engineer',
      notes: '3 BHK, east facing',
      utm_source: 'google',
      utm_campaign: 'diwali',
      gclid: 'abc123',
      is_repeated: false,
      consent: { notice: 'https://skyline.example/privacy-notice-v3', given_at: expect.stringMatching(/\+05:30$/), purposes: ['site_visit', 'project_updates'] },
    });
    for (const absent of ['utm_id', 'utm_medium', 'utm_term', 'fbclid', 'alternate_number']) expect(leads[0]).not.toHaveProperty(absent);
    // A box left unticked gives no consent.
    expect(leads[1]).not.toHaveProperty('consent');
  });

  it('stops cleanly: the browser closes, npm start exits 0 on SIGTERM, nothing is left behind', async () => {
    await browser!.close();
    browser = undefined;
    expect(processesMatching(profileDir)).toEqual([]);

    const pgid = service!.pid!;
    process.kill(pgid, 'SIGTERM');
    expect(await serviceExited).toBe(0);
    await waitFor(() => processGroup(pgid).length === 0, 'the process group to empty', 10_000).catch(() => undefined);
    expect(processGroup(pgid)).toEqual([]);
    expect(processesMatching(`DynamoDBLocal.jar.* -port ${dynamoPort}( |$)`)).toEqual([]);
  }, 20_000);
});
