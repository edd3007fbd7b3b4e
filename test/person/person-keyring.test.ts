/**
 * The key of the person lookup items: a keyed hash (HMAC-SHA256) of a normalised handle, with a secret
 * read once from Secrets Manager in AWS (one signed request, no SDK client), a local one otherwise, and
 * none at all in Lambda without its secret.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { emailHandle, hmacKeyring, personHandleOf } from '../../shared/domain/person-data.ts';
import { personKeyringFromEnvironment, readSecretString } from '../../shared/person-keyring.ts';

describe('the lookup hash of a person', () => {
  it('is the same for every form of one mobile or one e-mail, differs by secret, and never shows the handle', async () => {
    const keyring = hmacKeyring(async () => 'secret-one');
    const fromForms = await Promise.all(['+91 98765 43210', '09876543210', '9876543210'].map((m) => keyring.digest(personHandleOf({ mobile_number: m }))));
    expect(new Set(fromForms).size).toBe(1);
    expect(fromForms[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(fromForms[0]).not.toContain('9876543210');
    expect(await keyring.digest(emailHandle('Asha@Example.com'))).toBe(await keyring.digest(personHandleOf({ email: 'asha@example.COM' })));
    expect(await hmacKeyring(async () => 'secret-two').digest(personHandleOf({ mobile_number: '9876543210' }))).not.toBe(fromForms[0]);
  });

  it('refuses to hash in Lambda when the stack gave no secret, rather than use the public local one', async () => {
    const keyring = personKeyringFromEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'lead-intake-website' });
    await expect(keyring.digest(emailHandle('a@b.co'))).rejects.toThrow('PERSON_KEY_SECRET_ARN is not set');
  });
});

describe('the secret read from Secrets Manager', () => {
  it('is one GetSecretValue, signed for secretsmanager with the function’s credentials', async () => {
    const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ headers: request.headers, body });
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ SecretString: 'from-secrets-manager' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDPERSONTEST', AWS_SECRET_ACCESS_KEY: 'test-secret', AWS_SESSION_TOKEN: 'test-token' });
    try {
      const arn = 'arn:aws:secretsmanager:ap-south-1:123456789012:secret:person-key';
      expect(await readSecretString(arn, 'ap-south-1', `http://127.0.0.1:${(server.address() as AddressInfo).port}`)).toBe('from-secrets-manager');
      expect(seen).toHaveLength(1);
      expect(JSON.parse(seen[0]!.body)).toEqual({ SecretId: arn });
      expect(seen[0]!.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
      expect(seen[0]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDPERSONTEST\/\d{8}\/ap-south-1\/secretsmanager\/aws4_request/);
      expect(seen[0]!.headers['x-amz-security-token']).toBe('test-token');
    } finally {
      process.env = saved;
      server.close();
    }
  });
});
