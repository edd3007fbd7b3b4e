/**
 * The Meta app's secrets as a synchronous webhook reads them (shared/meta-app.ts): from the environment
 * locally, from the one Secrets Manager secret in AWS (read once, through the lead functions' signed
 * request), never quoting the secret in an error; its subscription check.
 */
import { describe, expect, it } from '@jest/globals';
import { APP_SECRET_PLACEHOLDER, metaAppSecretsFromEnvironment, subscriptionChallenge } from '../../shared/meta-app.ts';

const ARN = 'arn:aws:secretsmanager:ap-south-1:123456789012:secret:meta-app-AbCdEf';

describe("the Meta app's secrets", () => {
  it('are read from META_APP_SECRET and META_VERIFY_TOKEN without a secret ARN', async () => {
    expect(await metaAppSecretsFromEnvironment({ META_APP_SECRET: 's', META_VERIFY_TOKEN: 't' })()).toEqual({ appSecret: 's', verifyToken: 't' });
    await expect(metaAppSecretsFromEnvironment({ META_APP_SECRET: 's' })()).rejects.toThrow('META_APP_SECRET and META_VERIFY_TOKEN must be set');
  });

  it('are read once from the secret its ARN names, in its region; a failed read is tried again', async () => {
    const reads: string[] = [];
    let fail = true;
    const load = metaAppSecretsFromEnvironment({ META_SECRET_ARN: ARN }, async (arn, region) => {
      reads.push(`${arn} ${region}`);
      if (fail) throw new Error('network down');
      return JSON.stringify({ appSecret: 'app', verifyToken: 'token' });
    });
    await expect(load()).rejects.toThrow('network down');
    fail = false;
    expect(await load()).toEqual({ appSecret: 'app', verifyToken: 'token' });
    expect(await load()).toEqual({ appSecret: 'app', verifyToken: 'token' });
    expect(reads).toEqual([`${ARN} ap-south-1`, `${ARN} ap-south-1`]);
  });

  it.each([
    ['not JSON', 'very-secret-text', 'is not JSON'],
    ['missing the verify token', JSON.stringify({ appSecret: 'very-secret-text' }), 'must hold JSON with non-empty'],
    ['still the placeholder', JSON.stringify({ appSecret: APP_SECRET_PLACEHOLDER, verifyToken: 't' }), 'is not set yet'],
  ])('are refused when the secret is %s, without quoting it', async (_case, value, message) => {
    const failure = metaAppSecretsFromEnvironment({ META_SECRET_ARN: ARN }, async () => value)();
    await expect(failure).rejects.toThrow(message);
    await expect(failure).rejects.not.toThrow('very-secret-text');
  });
});

describe("Meta's subscription check", () => {
  it('answers the challenge to the verify token only', () => {
    expect(subscriptionChallenge(new URLSearchParams('hub.mode=subscribe&hub.verify_token=t&hub.challenge=42'), 't')).toBe('42');
    expect(() => subscriptionChallenge(new URLSearchParams('hub.mode=subscribe&hub.verify_token=x&hub.challenge=42'), 't')).toThrow('Verification failed');
    expect(() => subscriptionChallenge(new URLSearchParams('hub.mode=subscribe&hub.verify_token=&hub.challenge=42'), '')).toThrow('Verification failed');
  });
});
