/**
 * npm test's stand-ins for curl, jq and openssl (test/support/stand-ins.ts), for a machine without them:
 * given the README's own invocations of each tool and the same input, a stand-in prints what the real
 * tool prints and exits as it does; and it refuses, loudly, any flag the README does not use, so a new
 * example with one fails the README walk rather than passing on something the tool would not have done.
 *
 * The comparison needs the real tool: it is made for each one the machine has. On a machine without it,
 * the README walk (readme-walk.test.ts) is what shows the stand-in gives the README's answers.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../scripts/local/environment.ts';
import { foundOnPath, standInBin, standInTools, type StandInTool } from '../support/stand-ins.ts';
import { newcomerBlocks } from './readme-examples.ts';

// The README's own invocations: those of its page and of the pages its walk follows (readme-walk.test.ts).
const commands = newcomerBlocks().flatMap((block) => block.examples.map((example) => example.command.replace(/\s+#.*$/, '')));

/**
 * Each invocation of a tool in the README's commands, as written: from the tool's name to the end of its
 * simple command (an unquoted `|`, `)`, `;`, `&` or the end), quotes and line continuations kept.
 */
const invocationsOf = (tool: StandInTool): string[] => {
  const found: string[] = [];
  for (const command of commands) {
    for (const match of command.matchAll(new RegExp(`(?<=^|[\\s|(;])${tool} `, 'g'))) {
      let end = match.index;
      while (end < command.length && !'|);&'.includes(command[end]!)) {
        const quote = command[end];
        if (quote === "'" || quote === '"') {
          const close = command.indexOf(quote, end + 1);
          if (close < 0) throw new Error(`an unclosed quote in: ${command}`);
          end = close + 1;
        } else end += 1;
      }
      found.push(command.slice(match.index, end).trim());
    }
  }
  return found;
};

const run = promisify(execFile);
const standIns = standInBin(standInTools);
afterAll(() => rmSync(standIns, { recursive: true, force: true }));
const metaBody = (JSON.parse(readFileSync(path.join(projectRoot, 'events/meta-leadgen.json'), 'utf8')) as { body: string }).body;

/** A bash command's standard output and exit code, with the machine's own tools or the stand-ins. */
const outcome = async (script: string, env: Record<string, string>, tools: 'real' | 'stand-ins') => {
  const PATH = tools === 'real' ? process.env.PATH! : `${standIns}${path.delimiter}${process.env.PATH}`;
  try {
    const { stdout } = await run('bash', ['--noprofile', '--norc', '-c', script], { cwd: projectRoot, env: { ...process.env, ...env, PATH } });
    return { code: 0, stdout };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
};

/** What each tool's README invocations are given: the variables they use, and their standard input. */
const inputs: Record<StandInTool, (invocation: string) => { script: string; env: Record<string, string> }> = {
  curl: (invocation) => ({ script: invocation, env: { BODY: metaBody, SIG: 'sha256=0123abcd' } }),
  // What the README pipes into jq: the admin CLI's lead records (an array), or one JSON object (a new
  // key, a stored secret).
  jq: (invocation) => ({
    script: `printf '%s' "$INPUT" | ${invocation}`,
    env: {
      APP_SECRET: 'new app secret',
      INPUT: invocation.includes('.[]')
        ? JSON.stringify([
            { id: '01A', name: 'Ravi Kumar', source: 'portala', mobile_number: '9876500010' },
            { id: '01B', name: 'Zoë D’Souza', source: 'social', sub_source: 'fb', mobile_number: '9000000001', meta_form_id: '2200000000000001', meta_leadgen_id: '1200000000000001' },
            { id: '01C', name: 'G Lead', source: 'google_ads', mobile_number: '9876500020' },
            { id: '01D', name: 'Caller', source: 'call', sub_source: 'exotel', mobile_number: '9876500043', call_outcome: 'answered' },
            { id: '01E', name: 'Missed', source: 'call', sub_source: 'knowlarity', mobile_number: '9876500044', call_outcome: 'missed' },
            { id: '01F', name: 'Asha Verma', source: 'social', sub_source: 'wp', mobile_number: '9876500061', whatsapp_ad_id: '120210000000000001', notes: 'Is the 2 BHK still available?' },
          ])
        : JSON.stringify({ key_id: 'key_01ABC', verifyToken: 'verify me', appSecret: 'old' }),
    },
  }),
  openssl: (invocation) => ({ script: `printf %s "$BODY" | ${invocation}`, env: { BODY: metaBody } }),
};

describe("the stand-ins, on the README's own invocations", () => {
  let echo: Server;
  let base: string;

  // What curl sent, told back: the request line, the headers a client chooses (those that name the
  // client itself left out) and the body; with a 201 and no final newline, as the body is to be printed.
  beforeAll(async () => {
    echo = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(request.headers)
            .filter(([name]) => !['user-agent', 'accept-encoding', 'accept-language', 'sec-fetch-mode', 'connection'].includes(name))
            .sort(([a], [b]) => a.localeCompare(b)),
        );
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ method: request.method, url: request.url, headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => echo.close(resolve));
  });

  it('finds the README invocations of each tool', () => {
    expect(invocationsOf('curl').length).toBeGreaterThanOrEqual(10);
    expect(invocationsOf('jq').length).toBeGreaterThanOrEqual(8);
    // Meta's page and WhatsApp's sign alike, with the Meta app's local secret.
    expect([...new Set(invocationsOf('openssl'))]).toEqual(['openssl dgst -sha256 -hmac local-meta-app-secret']);
    expect(invocationsOf('jq')).toContain(`jq --arg s "$APP_SECRET" '.appSecret = $s'`);
  });

  for (const tool of standInTools.filter((candidate) => foundOnPath(candidate, process.env.PATH ?? '') !== undefined)) {
    it(`${tool}: prints what the machine's ${tool} prints and exits as it does`, async () => {
      const local = (text: string) => (tool === 'curl' ? text.replaceAll('http://127.0.0.1:3000', base).replaceAll('https://graph.facebook.com', base) : text);
      for (const invocation of invocationsOf(tool)) {
        const { script, env } = inputs[tool](local(invocation));
        const environment = { ...env, BASE_URL: base };
        const real = await outcome(script, environment, 'real');
        const standIn = await outcome(script, environment, 'stand-ins');
        expect({ invocation, code: standIn.code, stdout: standIn.stdout }).toEqual({ invocation, code: real.code, stdout: real.stdout });
        // Something was printed, and curl's requests reached the echo server.
        expect(real.stdout.length).toBeGreaterThan(0);
        if (tool === 'curl') expect(real.stdout).toContain('"method":');
      }
    }, 60_000);
  }
});

describe('the stand-ins refuse, loudly, what the README does not use', () => {
  it.each([
    ['curl -i http://127.0.0.1:9/', /unknown flag -i/],
    ['curl -sS http://127.0.0.1:9/', /unknown flag -sS/],
    ['curl --data-binary x http://127.0.0.1:9/', /unknown flag --data-binary/],
    ['curl -s -d @events/google-ads.json http://127.0.0.1:9/', /-d @file is not supported/],
    ['curl -s -X POST', /no URL/],
    ["echo '{}' | jq -e .", /unknown option -e/],
    ["echo '{}' | jq --argjson n 1 .", /unknown option --argjson/],
    ['printf x | openssl dgst -md5 -hmac k', /unknown option -md5/],
    ['printf x | openssl dgst -sha256', /no -hmac KEY/],
    ['openssl dgst -sha256 -hmac k README.md', /a file argument README.md/],
    ['openssl rand -hex 8', /unknown command rand/],
  ])('%s', async (script, message) => {
    const { code, stdout, stderr } = await outcome(script, {}, 'stand-ins');
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });
});
