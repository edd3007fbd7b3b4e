import { describe, expect, it } from '@jest/globals';
import { keyOptions, normaliseOrigin } from '../../shared/domain/api-keys.ts';
import { InvalidKeyOptionError } from '../../shared/domain/errors.ts';
import { boundedRejection, MAX_REJECTION_BYTES } from '../../shared/domain/rejections.ts';
import { sourceKeyScopes } from '../../shared/sources/registry.ts';

const now = new Date('2030-01-01T00:00:00Z');
/** The key scopes the admin CLI and API give the key lifecycle: the registry's. */
const rules = { keyScopes: sourceKeyScopes };

describe('origins of a browser key', () => {
  it.each([
    ['https://Shop.example:443', 'https://shop.example'],
    ['HTTP://shop.example:80', 'http://shop.example'],
    ['https://shop.example:8443', 'https://shop.example:8443'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ])('reads %s as %s', (text, origin) => {
    expect(normaliseOrigin(text)).toBe(origin);
  });

  it.each(['https://shop.example/', 'https://shop.example/x', 'https://shop.example?', 'https://shop.example#', 'https://a@shop.example', 'shop.example', 'ws://shop.example', 'null', '', 'https://', 'https://shop example'])(
    'refuses %j as not an origin',
    (text) => {
      expect(normaliseOrigin(text)).toBeUndefined();
    },
  );
});

describe('the options of a key', () => {
  it('makes origins without endpoints a website key, normalised and without repeats', () => {
    expect(keyOptions({ origins: ['https://Shop.example:443', 'https://shop.example'] }, now, rules)).toEqual({
      label: null,
      endpoints: ['website'],
      origins: ['https://shop.example'],
      expiresAt: null,
    });
  });

  it('keeps endpoints in the order given, once each', () => {
    expect(keyOptions({ endpoints: ['social', 'portala', 'social'] }, now, rules).endpoints).toEqual(['social', 'portala']);
  });

  it.each([
    [{ endpoints: ['website', 'crm'] }, 'endpoints'],
    [{ endpoints: [] }, 'endpoints'],
    [{ origins: [] }, 'origins'],
    [{ origins: ['https://shop.example'], endpoints: ['website', 'portalb'] }, 'endpoints'],
    [{ expiresAt: '2029-12-31T23:59:59Z' }, 'expires'],
    [{ expiresAt: '2030-01-01T00:00:00Z' }, 'expires'],
    [{ expiresAt: '31/12/2030' }, 'expires'],
    [{ label: 'a\nb' }, 'label'],
  ])('refuses %j, naming the option', (options, option) => {
    expect(() => keyOptions(options, now, rules)).toThrow(expect.objectContaining({ option }) as unknown as InvalidKeyOptionError);
  });

  it('reads an expiry with an offset as UTC, and allows a past one only where asked (seed files)', () => {
    expect(keyOptions({ expiresAt: '2030-06-01T10:00:00+05:30' }, now, rules).expiresAt).toBe('2030-06-01T04:30:00.000Z');
    expect(keyOptions({ expiresAt: '2001-01-01' }, now, { ...rules, allowPastExpiry: true }).expiresAt).toBe('2001-01-01T00:00:00.000Z');
  });
});

describe('the bound of a rejection record', () => {
  const rejection = (fields: Record<string, unknown>) => ({ at: now.toISOString(), requestId: 'r', endpoint: 'portala', reason: 'validation', message: 'm', fields });

  it('keeps at most 20 field problems and counts the rest', () => {
    const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, [`f${i} is not an accepted field`]]));
    const bounded = boundedRejection(rejection(fields));
    expect(Object.keys(bounded.fields)).toHaveLength(20);
    expect(bounded.omittedFields).toBe(30);
  });

  it('keeps at least one field problem however large, within 8 KiB', () => {
    const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${'名'.repeat(500)}${i}`, Array.from({ length: 10 }, () => '😀'.repeat(1000))]));
    const bounded = boundedRejection(rejection(fields));
    expect(Object.keys(bounded.fields).length).toBeGreaterThanOrEqual(1);
    expect(Buffer.byteLength(JSON.stringify(bounded))).toBeLessThanOrEqual(MAX_REJECTION_BYTES);
  });

  it('keeps long names that are cut to the same text apart', () => {
    const bounded = boundedRejection(rejection({ [`${'n'.repeat(300)}1`]: ['a'], [`${'n'.repeat(300)}2`]: ['b'] }));
    expect(Object.keys(bounded.fields)).toHaveLength(2);
    expect(bounded).not.toHaveProperty('omittedFields');
  });

  it('passes every other property through, such as another intake path would add', () => {
    expect(boundedRejection({ ...rejection({}), meta_leadgen_id: '123' } as never)).toMatchObject({ meta_leadgen_id: '123', endpoint: 'portala' });
  });
});

describe('the calls scope of a key (CONTRACT.md section 13)', () => {
  it('makes a key limited to calls alone', () => {
    expect(keyOptions({ endpoints: ['calls'] }, now, rules).endpoints).toEqual(['calls']);
  });

  it.each([
    [{ endpoints: ['calls', 'website'] }],
    [{ endpoints: ['social', 'calls'] }],
    [{ endpoints: ['calls'], origins: ['https://shop.example'] }],
  ])('refuses calls with another endpoint or with origins: %j', (options) => {
    expect(() => keyOptions(options, now, rules)).toThrow(expect.objectContaining({ option: 'endpoints' }) as unknown as InvalidKeyOptionError);
  });
});
