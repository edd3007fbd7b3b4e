/**
 * How the suite over the registry (test/sources/every-source.test.ts) drives each declared source whose
 * function makes the lead in the request: an account ready for its deliveries, and a delivery of one
 * person's lead under one delivery id (an API key endpoint's Idempotency-Key, a platform's lead id),
 * with the right key or a wrong one. A new source adds its driver here; the suite fails for a source
 * without one.
 */
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import type { EndpointName } from '../../shared/routes.ts';
import { callTestService, projectNumber } from './call-service.ts';
import { googleTestService, standardColumns } from './google-service.ts';
import { testService, validBody, type Answer, type ServiceOptions, type TestService } from './service.ts';

export interface Delivery {
  readonly mobile: string;
  /** What makes two deliveries one lead: the Idempotency-Key of an API key endpoint, a platform's lead id. */
  readonly id: string;
  /** Sent with a key that is not the account's (or the connection's). */
  readonly wrongKey?: boolean;
}

export interface SourceAccount {
  /** The key its deliveries carry: never in a log line. */
  readonly key: string;
  deliver(delivery: Delivery): Promise<Answer>;
}

export interface SourceUnderTest {
  readonly service: TestService;
  /** An account (duplicate setting `ignore`, project PRJ-1 with campaign CMP-1) and its sender. */
  account(accountId: string): Promise<SourceAccount>;
}

export type SourceDriver = (source: LeadSourceDescriptor, options: ServiceOptions) => Promise<SourceUnderTest>;

const project = { projectID: 'PRJ-1', campaignID: 'CMP-1' };
const accountSeed = (id: string) => ({ id, projects: { 'PRJ-1': ['CMP-1'] }, website: ['Skyline landing page'], social: ['fb', 'ig', 'wp'] });

/** The four lead endpoints: an API key in `x-api-key`, the delivery id as Idempotency-Key. */
const apiKeyEndpoint: SourceDriver = async (source, options) => {
  const service = await testService(options);
  const name = source.name as EndpointName;
  return {
    service,
    account: async (accountId) => {
      await service.seedAccount(accountSeed(accountId));
      const key = await service.issueKey(accountId);
      return {
        key,
        deliver: ({ mobile, id, wrongKey }) =>
          service.call(name, {
            apiKey: wrongKey ? `${key}-not-this-one` : key,
            body: validBody(name, project, { mobile_number: mobile }),
            headers: { 'idempotency-key': id },
          }),
      };
    },
  };
};

let formSequence = 0;

/** Google Ads lead forms: a form connected with its own key, the delivery id as Google's lead_id. */
const googleAds: SourceDriver = async (_source, options) => {
  const google = await googleTestService(options);
  return {
    service: google,
    account: async (accountId) => {
      await google.seedAccount(accountSeed(accountId));
      const formId = String(43_000_000_000 + Date.now() % 1_000_000 * 100 + (formSequence++ % 100));
      const key = await google.connectForm(accountId, formId);
      return {
        key,
        deliver: ({ mobile, id, wrongKey }) =>
          google.deliver({ leadId: id, formId, key: wrongKey ? `${key}-not-this-one` : key, columns: standardColumns(mobile) }),
      };
    },
  };
};

/** Calls to project numbers: a connected number and a calls key in the query string, the delivery id as the provider's call id. */
const calls: SourceDriver = async (_source, options) => {
  const service = await callTestService(options);
  return {
    service,
    account: async (accountId) => {
      await service.seedAccount(accountSeed(accountId));
      const key = await service.callsKey(accountId);
      const number = projectNumber();
      await service.connectNumber(accountId, number);
      return {
        key,
        deliver: ({ mobile, id, wrongKey }) =>
          service.deliver({ provider: 'generic', queryKey: wrongKey ? `${key}-not-this-one` : key, json: { call_id: id, caller_number: mobile, called_number: number } }),
      };
    },
  };
};

/** Each request source's driver, by the source's name. */
export const sourceDrivers: Readonly<Record<string, SourceDriver>> = {
  website: apiKeyEndpoint,
  portala: apiKeyEndpoint,
  portalb: apiKeyEndpoint,
  social: apiKeyEndpoint,
  google_ads: googleAds,
  call: calls,
};
