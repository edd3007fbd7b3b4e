import { describe, expect, it } from '@jest/globals';
import { runAdmin } from '../../scripts/admin.ts';
import { connectionSources } from '../../shared/sources/registry.ts';

/** `npm run admin -- <argv>` in this process, its output kept; no database is opened for help. */
const admin = async (argv: string[], columns?: number) => {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(argv, { env: {}, ...(columns !== undefined && { columns }), stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text) });
  return { code, stdout, stderr };
};
const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));
const GROUPS = ['Accounts and keys:', 'Leads and rejections:', 'Connections, per source:', 'A person’s data (access and erasure):', 'Events to the CRM:'];
/** The verbs listed under a group's heading, up to the next blank line. */
const verbsUnder = (help: string, heading: string) => {
  const block = help.slice(help.indexOf(`${heading}\n`) + heading.length + 1).split('\n\n')[0]!;
  return block.split('\n').filter((line) => /^  \S/.test(line)).map((line) => line.trim().split(/\s+/)[0]);
};

describe('admin --help', () => {
  it('fits in 80 columns when its output is not a terminal', async () => {
    const { code, stdout } = await admin(['--help']);
    expect(code).toBe(0);
    expect(widest(stdout)).toBeLessThanOrEqual(80);
  });

  it('wraps at the terminal’s width, wide or narrow', async () => {
    const wide = (await admin(['--help'], 140)).stdout;
    expect(widest(wide)).toBeLessThanOrEqual(140);
    expect(widest(wide)).toBeGreaterThan(80);
    expect(widest((await admin(['--help'], 40)).stdout)).toBeLessThanOrEqual(40);
  });

  it('groups the verbs by what an operator comes to do, in that order', async () => {
    const { stdout } = await admin(['--help']);
    const at = GROUPS.map((heading) => stdout.indexOf(`\n${heading}\n`));
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(verbsUnder(stdout, 'Accounts and keys:')).toEqual(expect.arrayContaining(['seed', 'set-duplicates', 'create-key', 'list-keys', 'revoke-key', 'rotate-key']));
    expect(verbsUnder(stdout, 'Leads and rejections:')).toEqual(expect.arrayContaining(['leads', 'rejections', 'release', 'sources']));
    expect(verbsUnder(stdout, 'A person’s data (access and erasure):')).toEqual(['person', 'erase']);
    expect(verbsUnder(stdout, 'Events to the CRM:')).toEqual(['replay-events']);
  });

  it('lists each kind of connection’s verbs of the registry under the connections, every verb once', async () => {
    const { stdout } = await admin(['--help']);
    const connections = verbsUnder(stdout, 'Connections, per source:');
    for (const { connection } of connectionSources) expect(connections).toContain(connection.cli.list.verb);
    const listed = stdout.split('\n').filter((line) => /^  [a-z]/.test(line)).map((line) => line.trim().split(/\s+/)[0]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('keeps each verb’s detail for <verb> --help: its whole usage and summary', async () => {
    const general = (await admin(['--help'])).stdout;
    const { code, stdout } = await admin(['create-key', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run admin -- create-key --account ID \[--label TEXT\] .*--captcha-action ACTION\]\] .*\[--json\]\n/);
    expect(stdout).toContain('--json prints the key with its details');
    expect(general).not.toContain('--json prints the key with its details');
    expect(general).toContain('npm run admin -- <command> --help');
  });
});
