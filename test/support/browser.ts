/**
 * The browser of the end-to-end tests. A machine with Node and Java only has no Chromium of its own, so
 * the one inside the @sparticuz/chromium npm package (unpacked to /tmp on first use) is used, launched
 * by playwright-core; a system Chromium, where one is installed, is preferred since it starts faster.
 */
import { existsSync } from 'node:fs';
import sparticuz from '@sparticuz/chromium';

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Without the background-networking flags Chromium keeps trying to reach Google's hosts, which this
 * machine's closed network refuses many at a time.
 */
const QUIET_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: string[];
  /** Where it came from, for a failing test's message. */
  readonly origin: 'system' | '@sparticuz/chromium';
}

export const chromiumLaunch = async (): Promise<ChromiumLaunch> => {
  const system = SYSTEM_CHROMIUM.find((candidate) => existsSync(candidate));
  if (system) return { executablePath: system, args: QUIET_FLAGS, origin: 'system' };
  // Not the package's own `args`: they are for Lambda and include --disable-web-security, which would
  // switch off the very CORS checks the tests are about.
  return { executablePath: await sparticuz.executablePath(), args: QUIET_FLAGS, origin: '@sparticuz/chromium' };
};
