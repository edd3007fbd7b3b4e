import { describe, expect, it } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { resolveSettings, routeThrottleBounds, type LeadIntakeSettings } from '../../lib/settings.ts';
import { rejectionTable } from '../../scripts/admin/rejections.ts';
import { keyAllowsEndpoint, keyOptions } from '../../shared/domain/api-keys.ts';
import { leadKeyEndpoints } from '../../shared/domain/lead.ts';
import type { Rejection, StoredRejection } from '../../shared/domain/ports/rejections.ts';
import { rejectionItem, rejectionOfItem } from '../../shared/dynamodb/rejection-items.ts';
import { adminKeyScopes } from '../../shared/admin-runtime.ts';
import { leadSources, platformIdAttributes, platformIdSources, sourceKeyScopes } from '../../shared/sources/registry.ts';

const at = '2026-11-25T10:00:00.000Z';
const now = new Date(at);
const ID = '01KAXZ8M4J0000000000000000';

/** A record with every attribute a rejection may have, so its item shows every name the record itself uses. */
const fullRejection: Rejection = {
  at,
  requestId: 'r-1',
  endpoint: 'website',
  reason: 'validation',
  message: 'Invalid lead data',
  mobile: '******3210',
  fields: { email: ['email must be an e-mail address'] },
  omittedFields: 1,
  key_id: 'key_1',
  submission: { source: 'website', sub_source: null, name: 'A', mobile_number: '9876543210', projectID: 'PRJ-1', campaignID: 'CMP-1' } as never,
  idempotency_key: 'k-1',
  idempotency_request_hash: 'h-1',
};
/** The attributes a stored record has of its own, besides those of the rejection as written. */
const storedOnly = ['released_at', 'lead_id', 'count', 'reasons', 'person_refs', 'idempotency_pk'];

describe("a source's lead source (the `source` its leads carry, derived into LeadSource)", () => {
  it("is one of the contract's words (sections 4, 10 and 13), so a misspelt declaration never reaches a lead or the CRM", () => {
    expect([...new Set(leadSources.map((source) => source.leadSource))].sort()).toEqual(['call', 'google_ads', 'portala', 'portalb', 'social', 'website']);
  });
});

describe("a platform's ids on a rejection record (the names its source's descriptor declares)", () => {
  it('are names no record has of its own, and no two sources share an id name', () => {
    const own = new Set([...Object.keys(rejectionItem('acc-1', ID, at, fullRejection)), ...storedOnly]);
    expect(platformIdAttributes.map(({ name }) => name).filter((name) => own.has(name))).toEqual([]);
    const ids = platformIdSources.map(({ platformId }) => platformId.field);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('are stored and read back at the top level of the record, as they always were', () => {
    const item = rejectionItem('acc-1', ID, at, { ...fullRejection, endpoint: 'call', platformIds: { provider: 'exotel', call_id: 'c-1' } });
    expect(item).toMatchObject({ provider: 'exotel', call_id: 'c-1', endpoint: 'call' });
    expect(item).not.toHaveProperty('platformIds');
    expect(rejectionOfItem(item)).toMatchObject({ provider: 'exotel', call_id: 'c-1', endpoint: 'call', id: ID });
  });

  it("never overwrite the record's own attributes or keys", () => {
    const item = rejectionItem('acc-1', ID, at, { ...fullRejection, platformIds: { reason: 'forged', pk: 'forged', id: 'forged' } });
    expect(item).toMatchObject({ reason: 'validation', id: ID });
    expect(item.pk).toMatch(/^REJECTIONS#acc-1#\d$/);
  });

  it('name the delivery in `admin rejections` as its platform shows it', () => {
    const record = (endpoint: string, ids: Record<string, string>): StoredRejection => ({ ...fullRejection, endpoint, ...ids, id: ID, created_at: at });
    const table = rejectionTable([
      record('meta', { meta_leadgen_id: '1200000000000009' }),
      record('google_ads', { google_lead_id: 'TeSter-123' }),
      record('call', { provider: 'knowlarity', call_id: 'c-77' }),
      record('website', {}),
    ]);
    expect(table).toContain('meta leadgen 1200000000000009 ');
    expect(table).toContain('google_ads lead TeSter-123 ');
    expect(table).toContain('call knowlarity c-77 ');
    expect(table).toMatch(/\swebsite\s+validation/);
  });
});

describe("a source's route throttle (the settings its descriptor declares)", () => {
  const declared = leadSources.flatMap(({ throttle }) =>
    throttle ? [{ ...throttle.rateLimit, ...routeThrottleBounds.rateLimit }, { ...throttle.burstLimit, ...routeThrottleBounds.burstLimit }] : [],
  );
  const settingsOf = (context: Record<string, unknown>, props: Partial<LeadIntakeSettings> = {}) =>
    resolveSettings(new App({ context }).node, props) as unknown as Record<string, unknown>;

  it('is two settings of the stack of its own, each with its declared default', () => {
    expect(new Set(declared.map(({ name }) => name)).size).toBe(declared.length);
    const defaults = settingsOf({});
    for (const { name, default: value } of declared) expect(defaults[name]).toBe(value);
  });

  it('is checked against the bounds of every route throttle, a burst as a whole number', () => {
    for (const { name, min, max } of declared) {
      expect(settingsOf({ [name]: String(max) })[name]).toBe(max);
      expect(() => settingsOf({ [name]: String(min - 1) })).toThrow(`${name} must be`);
      expect(() => settingsOf({ [name]: String(max + 1) })).toThrow(`${name} must be`);
    }
    const { rateLimit: rate, burstLimit: burst } = leadSources.find(({ throttle }) => throttle)!.throttle!;
    expect(settingsOf({ [rate.name]: '2.5' })[rate.name]).toBe(2.5);
    expect(() => settingsOf({ [burst.name]: '2.5' })).toThrow(`${burst.name} must be an integer from ${routeThrottleBounds.burstLimit.min} to ${routeThrottleBounds.burstLimit.max}; got "2.5"`);
  });

  it('is a typed prop of the stack under its declared name, and no other name is', () => {
    expect(settingsOf({}, { callsThrottlingRateLimit: 3, googleAdsThrottlingBurstLimit: 6 })).toMatchObject({ callsThrottlingRateLimit: 3, googleAdsThrottlingBurstLimit: 6 });
    // @ts-expect-error: a throttle no source declares is no setting of the stack.
    const undeclared: Partial<LeadIntakeSettings> = { smsThrottlingRateLimit: 3 };
    expect(undeclared).toBeDefined();
  });
});

describe("a source's key scope (the call webhook's `calls`)", () => {
  it('is declared by each source whose key is scoped to it alone, and by no other', () => {
    expect(leadSources.filter((source) => (source.authentication === 'scoped-api-key') !== (source.keyScope !== undefined)).map(({ name }) => name)).toEqual([]);
    expect(new Set([...leadKeyEndpoints, ...sourceKeyScopes]).size).toBe(leadKeyEndpoints.length + sourceKeyScopes.length);
  });

  it("is the admin function's too, which reads the scopes from the sources' admin modules, not the registry's descriptors", () => {
    expect(adminKeyScopes).toEqual(sourceKeyScopes);
  });

  it('is what the key lifecycle is given to check endpoints against, with the messages it always gave', () => {
    const rules = { keyScopes: sourceKeyScopes };
    expect(() => keyOptions({ endpoints: ['crm'] }, now, rules)).toThrow('unknown endpoint "crm": the endpoints are website, portala, portalb, social, calls');
    expect(() => keyOptions({ endpoints: ['social', 'calls'] }, now, rules)).toThrow('a calls key may only use the calls endpoint, not social');
  });

  it("is data to the key lifecycle: a source's scope is a key's endpoint alone, as given, and unknown otherwise", () => {
    const rules = { keyScopes: ['whatsapp'] };
    expect(keyOptions({ endpoints: ['whatsapp'] }, now, rules).endpoints).toEqual(['whatsapp']);
    expect(() => keyOptions({ endpoints: ['whatsapp', 'website'] }, now, rules)).toThrow('a whatsapp key may only use the whatsapp endpoint, not website');
    expect(() => keyOptions({ endpoints: ['whatsapp'] }, now, { keyScopes: [] })).toThrow('unknown endpoint "whatsapp": the endpoints are website, portala, portalb, social');
  });

  it('opens its source to a key limited to it alone, never to a key of every endpoint or of another', () => {
    expect(keyAllowsEndpoint({ endpoints: ['whatsapp'] }, 'whatsapp', { scoped: true })).toBe(true);
    expect(keyAllowsEndpoint({}, 'whatsapp', { scoped: true })).toBe(false);
    expect(keyAllowsEndpoint({ endpoints: ['whatsapp', 'website'] }, 'whatsapp', { scoped: true })).toBe(false);
    expect(keyAllowsEndpoint({ endpoints: ['whatsapp'] }, 'website')).toBe(false);
    expect(keyAllowsEndpoint({}, 'website')).toBe(true);
  });
});
