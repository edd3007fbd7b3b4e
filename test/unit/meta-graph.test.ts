import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { GraphReadError } from '../../shared/meta/errors.ts';
import { graphLeadReader } from '../../shared/meta/graph.ts';
import { socialBodyOf } from '../../shared/meta/lead-mapping.ts';
import { appSecretProof, isValidSignature, signatureOf } from '../../shared/meta/signature.ts';
import { localTokenCipher, pageTokenCipherFromEnvironment } from '../../shared/meta/token-cipher.ts';
import { backoffSeconds } from '../../shared/meta/worker-handler.ts';
import { APP_SECRET_PLACEHOLDER, metaSecretsFromEnvironment } from '../../shared/meta/secrets.ts';
import { LOCAL_RETRY } from '../../shared/meta/local.ts';

const form = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const field = (name: string, value: string) => ({ name, values: [value] });

/** A Graph client over a scripted fetch: each call answers the next status and body. */
const scripted = (...answers: (readonly [number, unknown] | Error)[]) => {
  const urls: URL[] = [];
  const reader = graphLeadReader({
    baseUrl: 'https://graph.example/v26.0',
    appSecret: async () => 'app-secret',
    retryDelayMs: 1,
    fetch: (async (url: URL) => {
      urls.push(url);
      const answer = answers.shift()!;
      if (answer instanceof Error) throw answer;
      return new Response(JSON.stringify(answer[1]), { status: answer[0] });
    }) as typeof fetch,
  });
  return { reader, urls };
};

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return error as GraphReadError;
  }
  throw new Error('resolved');
};

describe('the Graph API client', () => {
  it('reads a lead under the versioned base with the token, its appsecret_proof and the contract fields', async () => {
    const { reader, urls } = scripted([200, { id: '123', platform: 'fb' }]);
    expect(await reader.readLead('123', 'page-token')).toEqual({ id: '123', platform: 'fb' });
    expect(urls[0]!.pathname).toBe('/v26.0/123');
    expect(urls[0]!.searchParams.get('appsecret_proof')).toBe(createHmac('sha256', 'app-secret').update('page-token').digest('hex'));
    expect(urls[0]!.searchParams.get('fields')).toBe('id,created_time,field_data,platform,form_id,campaign_name,adset_name,ad_name,is_organic');
  });

  it.each([
    ['an OAuth error 190', 'token_refused', [400, { error: { code: 190, type: 'OAuthException', message: 'expired token page-token' } }]],
    ['a 500', 'transient', [500, { error: { code: 2 } }]],
    ['a 503 without a body', 'transient', [503, '']],
    ['an application rate limit (code 4)', 'transient', [400, { error: { code: 4 } }]],
    ['a page rate limit (code 32)', 'transient', [400, { error: { code: 32 } }]],
    ['an ads rate limit (code 80004)', 'transient', [400, { error: { code: 80004 } }]],
    ['a 429', 'transient', [429, {}]],
    ['an error Graph calls transient', 'transient', [400, { error: { code: 100, is_transient: true } }]],
    ['a missing permission (code 200)', 'refused', [403, { error: { code: 200 } }]],
    ['an unknown object (code 100)', 'refused', [400, { error: { code: 100, error_subcode: 33 } }]],
    ['a 200 that is not a lead', 'refused', [200, { data: [] }]],
  ] as const)('sorts %s as %s, without Graph message or token', async (_case, kind, answer) => {
    const { reader } = scripted(answer, answer);
    const error = await failureOf(reader.readLead('123', 'page-token'));
    expect(error).toBeInstanceOf(GraphReadError);
    expect(error.kind).toBe(kind);
    expect(`${error.message} ${JSON.stringify(error.summary)}`).not.toContain('page-token');
  });

  it('tries a network error once more in the same call, then leaves it to the queue', async () => {
    const reset = Object.assign(new TypeError('fetch failed https://graph.example/v26.0/123?access_token=page-token'), { cause: { code: 'ECONNRESET' } });
    const once = scripted(reset, [200, { id: '123' }]);
    expect(await once.reader.readLead('123', 'page-token')).toEqual({ id: '123' });
    const twice = scripted(reset, reset);
    const error = await failureOf(twice.reader.readLead('123', 'page-token'));
    expect(error.kind).toBe('transient');
    expect(error.message).toContain('ECONNRESET');
    expect(error.message).not.toContain('page-token');
  });
});

describe('mapping a Graph lead to the social fields', () => {
  it('maps full_name, phone_number, email, city, platform and the ad names', () => {
    const body = socialBodyOf(
      { id: '1', platform: 'ig', campaign_name: 'C', adset_name: 'S', ad_name: 'A', field_data: [field('full_name', 'Asha'), field('phone_number', '+919876543210'), field('email', 'a@b.in'), field('city', 'Pune')] },
      form,
    );
    expect(body).toEqual({ name: 'Asha', mobile_number: '+919876543210', email: 'a@b.in', location: 'Pune', platform: 'ig', social_campaign: 'C', social_adset: 'S', social_ad: 'A', ...form });
  });

  it("puts the form's own questions in notes as question: answer lines, in the order sent, as Google's columns", () => {
    const body = socialBodyOf(
      {
        id: '1',
        field_data: [
          field('budget', ' 80L-1Cr '),
          field('full_name', 'Asha'),
          field('preferred_location', 'Whitefield'),
          { name: 'amenities', values: ['Gym', ' Pool ', ''] },
          field('car_make', ''),
          { name: 'when_to_call', values: [] },
          field('phone_number', '+919876543210'),
        ],
      },
      form,
    );
    expect(body.notes).toBe('budget: 80L-1Cr\npreferred_location: Whitefield\namenities: Gym, Pool');
    expect(body.name).toBe('Asha');
  });

  it('leaves notes out when the form asks nothing of its own, and cuts them to 5,000 characters', () => {
    expect(socialBodyOf({ id: '1', field_data: [field('full_name', 'Asha'), field('email', 'a@b.in')] }, form)).not.toHaveProperty('notes');
    const notes = socialBodyOf({ id: '1', field_data: [field('requirements', 'x'.repeat(6_000))] }, form).notes as string;
    expect(notes).toHaveLength(5_000);
    expect(notes.startsWith('requirements: xxx')).toBe(true);
  });

  it('joins first_name and last_name, or takes the one there is', () => {
    expect(socialBodyOf({ id: '1', field_data: [field('first_name', ' Kabir '), field('last_name', 'Shah')] }, form).name).toBe('Kabir Shah');
    expect(socialBodyOf({ id: '1', field_data: [field('first_name', 'Kabir')] }, form).name).toBe('Kabir');
    expect(socialBodyOf({ id: '1', field_data: [] }, form)).not.toHaveProperty('name');
  });
});

describe('signatures and proofs', () => {
  it('accepts exactly the HMAC-SHA256 of the bytes', () => {
    const body = Buffer.from('{"object":"page"}');
    expect(isValidSignature(body, signatureOf(body, 's'), 's')).toBe(true);
    expect(isValidSignature(Buffer.from('{"object":"page"} '), signatureOf(body, 's'), 's')).toBe(false);
    expect(isValidSignature(body, signatureOf(body, 's'), '')).toBe(false);
    expect(appSecretProof('t', 's')).toBe(createHmac('sha256', 's').update('t').digest('hex'));
  });
});

describe('page token sealing', () => {
  it('seals with AES-256-GCM bound to the page id, different each time', async () => {
    const cipher = localTokenCipher();
    const a = await cipher.seal('1', 'EAAB-token');
    expect(a).not.toContain('EAAB');
    expect(a).not.toBe(await cipher.seal('1', 'EAAB-token'));
    expect(await cipher.open('1', a)).toBe('EAAB-token');
    await expect(cipher.open('2', a)).rejects.toThrow();
    await expect(localTokenCipher(Buffer.alloc(32, 7)).open('1', a)).rejects.toThrow();
  });

  it('never falls back to the local development key inside Lambda', () => {
    expect(() => pageTokenCipherFromEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'meta-worker' })).toThrow('META_PAGE_TOKEN_KEY_ID is not set');
    expect(() => pageTokenCipherFromEnvironment({ META_LOCAL_TOKEN_KEY: 'short' })).toThrow('64 hex digits');
  });
});

describe('back-off', () => {
  it('doubles from the base up to the cap', () => {
    const policy = { maxReceiveCount: 12, baseSeconds: 30, maxSeconds: 900 };
    expect([1, 2, 3, 4, 5, 6, 11].map((n) => backoffSeconds(n, policy))).toEqual([30, 60, 120, 240, 480, 900, 900]);
  });
});

describe('the local retry window', () => {
  it('gives up on a read about 30 seconds after the first try, as npm start promises', () => {
    let waited = 0;
    for (let receive = 1; receive < LOCAL_RETRY.maxReceiveCount; receive += 1) waited += backoffSeconds(receive, LOCAL_RETRY);
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(waited).toBeLessThanOrEqual(35);
  });
});

describe('the Meta secrets', () => {
  const secretsManager = (secretString: string, calls: string[] = []) =>
    ({ send: async (command: { input: { SecretId: string } }) => (calls.push(command.input.SecretId), { SecretString: secretString }) }) as never;

  it('reads the secret once per container', async () => {
    const calls: string[] = [];
    const load = metaSecretsFromEnvironment({ META_SECRET_ARN: 'arn:secret' }, secretsManager(JSON.stringify({ appSecret: 'a', verifyToken: 'v' }), calls));
    expect(await load()).toEqual({ appSecret: 'a', verifyToken: 'v' });
    await load();
    expect(calls).toEqual(['arn:secret']);
  });

  it('refuses to work with the placeholder app secret the stack writes', async () => {
    const load = metaSecretsFromEnvironment({ META_SECRET_ARN: 'arn:secret' }, secretsManager(JSON.stringify({ appSecret: APP_SECRET_PLACEHOLDER, verifyToken: 'v' })));
    await expect(load()).rejects.toThrow('the Meta app secret is not set yet');
  });

  it('takes META_APP_SECRET and META_VERIFY_TOKEN locally, and wants both', async () => {
    expect(await metaSecretsFromEnvironment({ META_APP_SECRET: 'a', META_VERIFY_TOKEN: 'v' })()).toEqual({ appSecret: 'a', verifyToken: 'v' });
    await expect(metaSecretsFromEnvironment({ META_APP_SECRET: 'a' })()).rejects.toThrow('must be set');
  });
});
