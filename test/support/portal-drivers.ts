/**
 * Each portal of the registry driven the same way (test/portals/every-portal.test.ts): its fake on its
 * real wire (fake-portals.ts), a login of it with its credential, and enquiries of a person put there
 * as that portal writes them. A new portal adds its driver here, and the suite runs it like the others.
 */
import type { PortalName } from '../../shared/portals/registry.ts';
import { fakeHousing, fakeMagicbricks, fakeNinetyNineAcres, istText, mbTime } from './fake-portals.ts';

export interface DrivenEnquiry {
  /** The portal's own id where it has one (Housing.com has none: the service derives it). */
  readonly id: string;
  readonly mobile: string;
  /** A country code other than India's (the enquiry is then a `validation` record). */
  readonly countryCode?: string;
  readonly email?: string;
  readonly at: Date;
}

export interface PortalDriver {
  readonly url: string;
  /** A login on the portal whose credential is `credential`, and how its enquiries are made there. */
  login(login: string, credential: string): { enquire(enquiry: DrivenEnquiry): void };
  close(): Promise<void>;
}

export const portalDrivers: Record<PortalName, () => Promise<PortalDriver>> = {
  '99acres': async () => {
    const fake = await fakeNinetyNineAcres();
    return {
      url: fake.url,
      login: (login, credential) => {
        const account = fake.login(login, credential);
        return {
          enquire: ({ id, mobile, countryCode = '91', email, at }) =>
            account.add({ id, receivedOn: istText(at), name: 'Asha Verma', phone: `+${countryCode}-${mobile}`, ...(email && { email }), info: 'Is the 3 BHK available?', projectId: '88231', projectName: 'Skyline', city: 'Pune' }),
        };
      },
      close: fake.close,
    };
  },
  magicbricks: async () => {
    const fake = await fakeMagicbricks();
    return {
      url: fake.url,
      login: (login, credential) => {
        const account = fake.key(login, credential);
        return { enquire: ({ id, mobile, countryCode = '91', email, at }) => account.add({ id, ...mbTime(at), name: 'Asha Verma', mobile, isd: countryCode, ...(email && { email }), msg: 'Site visit please', pid: '5501', project: 'Skyline' }) };
      },
      close: fake.close,
    };
  },
  housing: async () => {
    const fake = await fakeHousing();
    return {
      url: fake.url,
      login: (login, credential) => {
        const profile = fake.profile(login, credential);
        return {
          enquire: ({ mobile, countryCode = '91', email, at }) =>
            profile.add('builder', { lead_date: Math.floor(at.getTime() / 1000), lead_name: 'Asha Verma', lead_phone: mobile, country_code: countryCode, ...(email && { lead_email: email }), project_id: '7701', project_name: 'Skyline' }),
        };
      },
      close: fake.close,
    };
  },
};
