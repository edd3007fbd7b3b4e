/**
 * Every length limit of CONTRACT.md section 2 at its boundary, on every endpoint that takes the
 * field: the longest allowed value is taken and stored whole, one character more is a 422 naming the
 * field with its own message. Lengths count after trimming.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { EndpointName } from '../../shared/routes.ts';
import { testService, uniqueMobile, validBody, type TestService } from '../support/service.ts';

const LONG_PROJECT = `P${'p'.repeat(99)}`;
const LONG_CAMPAIGN = `C${'c'.repeat(99)}`;
const LONG_SUB_SOURCE = `S${'s'.repeat(199)}`;
const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };

let service: TestService;
let apiKey: string;

beforeAll(async () => {
  service = await testService();
  await service.seedAccount({
    id: 'acc-limits',
    duplicateSetting: 'create',
    projects: { 'PRJ-1': ['CMP-1'], [LONG_PROJECT]: [LONG_CAMPAIGN] },
    website: ['Skyline landing page', LONG_SUB_SOURCE],
    social: ['fb'],
  });
  apiKey = await service.issueKey('acc-limits');
});

/** A valid value of exactly `length` characters for a field. */
const valueOf = (field: string, length: number): string => {
  if (field === 'email') return `${'a'.repeat(length - '@example.com'.length)}@example.com`;
  if (field === 'projectID') return length === 100 ? LONG_PROJECT : `${LONG_PROJECT}p`;
  if (field === 'campaignID') return length === 100 ? LONG_CAMPAIGN : `${LONG_CAMPAIGN}c`;
  if (field === 'sub_source') return length === 200 ? LONG_SUB_SOURCE : `${LONG_SUB_SOURCE}s`;
  return `${field[0]!.toUpperCase()}${'x'.repeat(length - 1)}`;
};

/** For the id fields the longest value must also exist: the long project goes with the long campaign. */
const bodyWith = (name: EndpointName, field: string, value: string) => {
  const ids = field === 'projectID' || field === 'campaignID' ? { projectID: LONG_PROJECT, campaignID: LONG_CAMPAIGN } : project;
  return validBody(name, ids, { mobile_number: uniqueMobile(), [field]: value });
};

const COMMON: [string, number][] = [
  ['name', 200],
  ['email', 254],
  ['projectID', 100],
  ['campaignID', 100],
];
const LIMITS: Record<EndpointName, [string, number][]> = {
  website: [
    ...COMMON,
    ['sub_source', 200],
    ['profession', 200],
    ['location', 200],
    ['notes', 5000],
    ...['utm_id', 'utm_campaign', 'utm_source', 'utm_medium', 'utm_term', 'gclid', 'fbclid'].map((field): [string, number] => [field, 500]),
  ],
  portala: [...COMMON, ['notes', 5000]],
  portalb: [...COMMON, ['notes', 5000]],
  social: [...COMMON, ['profession', 200], ['location', 200], ['notes', 5000], ['social_campaign', 500], ['social_adset', 500], ['social_ad', 500]],
};

const storedLead = async (mobile: string) =>
  (await service.repository.leadArchive.listLeads('acc-limits', ['PRJ-1', LONG_PROJECT])).find((lead) => lead.mobile_number === mobile);

describe.each(Object.keys(LIMITS) as EndpointName[])('length limits on %s', (name) => {
  it.each(LIMITS[name])('takes %s of exactly %i characters and stores it whole', async (field, max) => {
    const value = valueOf(field, max);
    expect(value).toHaveLength(max);
    const body = bodyWith(name, field, `  ${value} `);
    const answer = await service.call(name, { apiKey, body });
    expect([answer.status, answer.body.errors]).toEqual([200, undefined]);
    const stored = await storedLead(body.mobile_number as string);
    expect(stored?.[field]).toBe(value);
    if (answer.body.data) expect(answer.body.data[field]).toBe(value);
  });

  it.each(LIMITS[name])('refuses %s one character over %i, with its own message', async (field, max) => {
    const value = valueOf(field, max + 1);
    expect(value).toHaveLength(max + 1);
    const body = bodyWith(name, field, value);
    const answer = await service.call(name, { apiKey, body });
    const message = `${field} must be at most ${max.toLocaleString('en-US')} characters`;
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ status: false, message, errors: { [field]: [message] } });
    expect(await storedLead(body.mobile_number as string)).toBeUndefined();
  });
});
