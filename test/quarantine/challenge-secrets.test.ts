/**
 * Challenge secrets at rest (CONTRACT.md section 11): sealed for their account like Meta page tokens.
 * In AWS the functions seal and open them with one SigV4-signed KMS request each (no KMS SDK client in
 * the website bundle), opened once per container per key; locally the local cipher does it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { challengeSecretCipherFromEnvironment, challengeSecretScope, signedKmsCipher } from '../../shared/captcha/secrets.ts';
import { ChallengeSecrets } from '../../shared/domain/challenge.ts';
import { localCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';

const SECRET = 'kms-sealed-captcha-secret';

/** A fake KMS: Encrypt wraps the plaintext with its encryption context; Decrypt opens it only under the same context. */
let seen: { target: string | undefined; authorization: string | undefined; body: any }[] = [];
const server = createServer((request: IncomingMessage, response) => {
  let text = '';
  request.on('data', (chunk) => (text += chunk));
  request.on('end', () => {
    const body = JSON.parse(text);
    const target = request.headers['x-amz-target'] as string | undefined;
    seen.push({ target, authorization: request.headers.authorization, body });
    const answer = (status: number, payload: unknown) => response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
    if (target === 'TrentService.Encrypt') {
      return answer(200, { CiphertextBlob: Buffer.from(JSON.stringify({ context: body.EncryptionContext, plaintext: body.Plaintext })).toString('base64'), KeyId: body.KeyId });
    }
    if (target === 'TrentService.Decrypt') {
      const sealed = JSON.parse(Buffer.from(body.CiphertextBlob, 'base64').toString('utf8'));
      if (JSON.stringify(sealed.context) !== JSON.stringify(body.EncryptionContext)) return answer(400, { __type: 'InvalidCiphertextException' });
      return answer(200, { Plaintext: sealed.plaintext, KeyId: body.KeyId });
    }
    return answer(400, { __type: 'UnknownOperationException' });
  });
});
let endpoint: string;
const saved = { ...process.env };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDCAPTCHATEST', AWS_SECRET_ACCESS_KEY: 'test-secret', AWS_SESSION_TOKEN: 'test-token' });
});

afterAll(() => {
  process.env = saved;
  server.close();
});

describe('a challenge secret sealed with KMS by signed requests', () => {
  const keyArn = 'arn:aws:kms:ap-south-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

  it('is sealed by one signed Encrypt and opened by one signed Decrypt, bound to its account', async () => {
    seen = [];
    const cipher = signedKmsCipher(keyArn, 'ap-south-1', endpoint);
    const sealed = await cipher.seal('acc-1', SECRET);
    expect(sealed).toMatch(/^kms:/);
    expect(sealed).not.toContain(SECRET);
    expect(await cipher.open('acc-1', sealed)).toBe(SECRET);
    expect(seen.map((request) => request.target)).toEqual(['TrentService.Encrypt', 'TrentService.Decrypt']);
    for (const request of seen) {
      expect(request.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDCAPTCHATEST\/\d{8}\/ap-south-1\/kms\/aws4_request/);
      expect(request.body.EncryptionContext).toEqual({ lead_intake_captcha_account: 'acc-1' });
    }
    await expect(cipher.open('acc-2', sealed)).rejects.toThrow('kms refused TrentService.Decrypt: HTTP 400 InvalidCiphertextException');
  });

  it('is opened once per container per key, however many requests use it', async () => {
    const sealed = await signedKmsCipher(keyArn, 'ap-south-1', endpoint).seal('acc-1', SECRET);
    seen = [];
    const secrets = new ChallengeSecrets(signedKmsCipher(keyArn, 'ap-south-1', endpoint));
    const opened = await Promise.all([1, 2, 3].map(() => secrets.secretOf('acc-1', sealed)));
    expect(opened).toEqual([SECRET, SECRET, SECRET]);
    expect(await secrets.secretOf('acc-1', sealed)).toBe(SECRET);
    expect(seen.map((request) => request.target)).toEqual(['TrentService.Decrypt']);
  });

  it('is opened again after a failure, which is not kept', async () => {
    seen = [];
    const secrets = new ChallengeSecrets(signedKmsCipher(keyArn, 'ap-south-1', endpoint));
    const sealed = await signedKmsCipher(keyArn, 'ap-south-1', endpoint).seal('acc-1', SECRET);
    await expect(secrets.secretOf('acc-2', sealed)).rejects.toThrow(/InvalidCiphertextException/);
    await expect(secrets.secretOf('acc-2', sealed)).rejects.toThrow(/InvalidCiphertextException/);
    expect(seen.filter((request) => request.target === 'TrentService.Decrypt')).toHaveLength(2);
  });
});

describe('the cipher of the environment', () => {
  it('refuses to run in Lambda without the stack’s key, rather than use the public local key', () => {
    expect(() => challengeSecretCipherFromEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'lead-intake-website' })).toThrow('META_PAGE_TOKEN_KEY_ID is not set');
  });

  it('uses the local cipher locally: a secret sealed for one account does not open for another, nor as a page token', async () => {
    const local = challengeSecretCipherFromEnvironment({});
    const sealed = await local.seal('acc-1', SECRET);
    expect(sealed).toMatch(/^local-aes-gcm:/);
    expect(await local.open('acc-1', sealed)).toBe(SECRET);
    await expect(local.open('acc-2', sealed)).rejects.toThrow();
    await expect(localCipherFromEnvironment({}, { ...challengeSecretScope, aad: (owner) => `meta-page:${owner}` }).open('acc-1', sealed)).rejects.toThrow();
  });
});
