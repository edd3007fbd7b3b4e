/**
 * Secrets kept out of logs and ciphertexts held to their full tag (CONTRACT.md section 11, "Also fix").
 */
import { describe, expect, it } from '@jest/globals';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { metaSecretsFromEnvironment } from '../../shared/meta/secrets.ts';
import { localTokenCipher } from '../../shared/meta/token-cipher.ts';

/** Secrets Manager answering this secret string (there is no Secrets Manager to run locally). */
const secretsManager = (SecretString: string) => ({ send: async () => ({ SecretString }) }) as unknown as SecretsManagerClient;

const loadError = async (secretString: string) => {
  const load = metaSecretsFromEnvironment({ META_SECRET_ARN: 'arn:aws:secretsmanager:ap-south-1:1:secret:meta' }, secretsManager(secretString));
  return load().then(
    () => undefined,
    (error: Error) => error,
  );
};

describe('a Meta secret that is not the JSON it must be', () => {
  it.each([
    ['bare text', 'e3b0c44298fc1c149afbf4c8996fb924'],
    ['broken JSON', '{"appSecret": "e3b0c44298fc1c149afbf4c8996fb924", "verifyToken": '],
    ['JSON of another shape', '"e3b0c44298fc1c149afbf4c8996fb924"'],
  ])('is refused as %s with a fixed message that never quotes it', async (_, text) => {
    const error = await loadError(text);
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toMatch(/^the Meta secret (is not JSON|must hold JSON)/);
    expect(`${error!.message} ${error!.stack} ${JSON.stringify(error)} ${String(error!.cause ?? '')}`).not.toContain('e3b0c442');
  });
});

describe('the local page-token cipher', () => {
  const cipher = localTokenCipher();

  it('opens what it sealed', async () => {
    expect(await cipher.open('123', await cipher.seal('123', 'page-token'))).toBe('page-token');
  });

  it('refuses a ciphertext cut short of its 16-byte tag', async () => {
    const sealed = await cipher.seal('123', 'page-token');
    const bytes = Buffer.from(sealed.slice('local-aes-gcm:'.length), 'base64');
    const cut = `local-aes-gcm:${bytes.subarray(0, 12 + 8).toString('base64')}`;
    await expect(cipher.open('123', cut)).rejects.toThrow('too short');
  });

  it('refuses a ciphertext whose tag was shortened to 4 bytes (a GCM tag of any length would otherwise be checked)', async () => {
    const sealed = await cipher.seal('123', 'page-token');
    const bytes = Buffer.from(sealed.slice('local-aes-gcm:'.length), 'base64');
    // iv, a 4-byte tag, then the body: what a forger would try if short tags were accepted.
    const forged = `local-aes-gcm:${Buffer.concat([bytes.subarray(0, 12), bytes.subarray(12, 16), bytes.subarray(28)]).toString('base64')}`;
    await expect(cipher.open('123', forged)).rejects.toThrow();
  });

  it('refuses another page id', async () => {
    await expect(cipher.open('456', await cipher.seal('123', 'page-token'))).rejects.toThrow();
  });
});
