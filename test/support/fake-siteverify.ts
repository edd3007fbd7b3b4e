/**
 * A fake of the challenge providers' siteverify for the tests (CAPTCHA_VERIFY_URL points at it): a
 * local HTTP server that reads the form-encoded secret, response and remoteip, and answers what the
 * token asks for. Tokens `pass`, `fail`, `low-score` (reCAPTCHA v3 score 0.1), `high-score` (0.9),
 * `server-error` (500) and `stall` (never answers until the server closes); `once-...` passes once and
 * then, like every real provider's single-use token, fails `timeout-or-duplicate`; `host:<name>`
 * passes for a page on <name>; `v3:<action>` is a reCAPTCHA v3 pass (0.9) made for <action>; any
 * other token passes (hostname shop.example) when the secret is the expected one. `down(true)` makes
 * it answer 500 to everything until `down(false)`. Every request is kept, so a test can prove what was asked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { challengeSecretScope } from '../../shared/captcha/secrets.ts';
import { siteverifyClient, type SiteverifyOptions } from '../../shared/captcha/siteverify.ts';
import { ChallengeSecrets } from '../../shared/domain/challenge.ts';
import type { ChallengeDependencies } from '../../shared/http/middleware/captcha-challenge.ts';
import { localCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';

export interface SiteverifyRequest {
  readonly secret: string | null;
  readonly response: string | null;
  readonly remoteip: string | null;
}

export const fakeSiteverify = async (expectedSecret: string) => {
  const requests: SiteverifyRequest[] = [];
  const stalled: ServerResponse[] = [];
  const used = new Set<string>();
  let isDown = false;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const form = new URLSearchParams(text);
      const asked = { secret: form.get('secret'), response: form.get('response'), remoteip: form.get('remoteip') };
      requests.push(asked);
      const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return answer(400, { success: false, 'error-codes': ['bad-request'] });
      if (isDown) return answer(500, { error: 'internal' });
      if (asked.secret !== expectedSecret) return answer(200, { success: false, 'error-codes': ['invalid-input-secret'] });
      const token = asked.response ?? '';
      if (token.startsWith('once-')) {
        if (used.has(token)) return answer(200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
        used.add(token);
        return answer(200, { success: true, hostname: 'shop.example' });
      }
      if (token.startsWith('host:')) return answer(200, { success: true, hostname: token.slice('host:'.length) });
      if (token.startsWith('v3:')) return answer(200, { success: true, score: 0.9, action: token.slice('v3:'.length), hostname: 'shop.example' });
      switch (asked.response) {
        case 'stall':
          stalled.push(response);
          return undefined;
        case 'server-error':
          return answer(500, { error: 'internal' });
        case 'fail':
          return answer(200, { success: false, 'error-codes': ['invalid-input-response'] });
        case 'low-score':
          return answer(200, { success: true, score: 0.1, action: 'submit' });
        case 'high-score':
          return answer(200, { success: true, score: 0.9, action: 'submit' });
        default:
          return answer(200, { success: true, hostname: 'shop.example' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`;
  return {
    url,
    requests,
    /** A provider that is down (500 to every request), or up again. */
    down: (down: boolean) => void (isDown = down),
    /** How many requests are being held unanswered (`stall`). */
    stalledCount: () => stalled.length,
    close: async () => {
      for (const response of stalled) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export type FakeSiteverify = Awaited<ReturnType<typeof fakeSiteverify>>;

/** A service's challenge checking against the fake, with the local cipher of challenge secrets. */
export const challengesAgainst = (provider: Pick<FakeSiteverify, 'url'>, options: Omit<SiteverifyOptions, 'verifyUrl'> = {}): ChallengeDependencies => ({
  verifier: siteverifyClient({ verifyUrl: provider.url, ...options }),
  secrets: new ChallengeSecrets(localCipherFromEnvironment({}, challengeSecretScope)),
});
