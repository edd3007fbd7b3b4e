/**
 * An enquiry as a lead (CONTRACT.md section 17, "The lead"), written once for every portal: its name
 * (cut to 200; none: `Portal enquiry`), its mobile (a country code other than 91 is a `validation`
 * record, as section 15 has it), its e-mail when section 2 accepts it (otherwise left out), its notes
 * (cut to 5,000), the project and campaign of its portal project in the login's map (else the login's),
 * and the portal's own words under `portal_*`. Pure: the pull (pull.ts) stores what this makes.
 */
import * as v from 'valibot';
import { FieldValidationError } from '../domain/errors.ts';
import { leadFieldValidator } from '../domain/field-validation.ts';
import { commonLeadFields, optionalText, text } from '../schemas/lead-fields.ts';
import type { ValidatedFields } from '../schemas/validate.ts';
import type { Enquiry } from './types.ts';
import type { PortalLogin } from './logins.ts';

export const pulledLeadFields = {
  ...commonLeadFields,
  notes: optionalText('notes', 5000),
  portal_login: text('portal_login', 200),
  portal_enquiry_id: text('portal_enquiry_id', 200),
  portal_received_at: optionalText('portal_received_at', 40),
  portal_project_id: optionalText('portal_project_id', 200),
  portal_project_name: optionalText('portal_project_name', 500),
  portal_city: optionalText('portal_city', 200),
  portal_listing_id: optionalText('portal_listing_id', 200),
};

const validate = leadFieldValidator(pulledLeadFields, 'ignore');
const emailSchema = commonLeadFields.email;

/** An enquiry's fields as a submission's body would carry them, before validation. */
export const enquiryBody = (login: Pick<PortalLogin, 'login' | 'projectId' | 'campaignId' | 'map'>, enquiry: Enquiry): Record<string, string> => {
  const target = (enquiry.projectId !== undefined && login.map[enquiry.projectId]) || { projectId: login.projectId, campaignId: login.campaignId };
  const name = (enquiry.name ?? '').trim().slice(0, 200).trim();
  const email = enquiry.email?.trim();
  const body: Record<string, string | undefined> = {
    name: name === '' ? 'Portal enquiry' : name,
    mobile_number: enquiry.phone?.trim(),
    email: email !== undefined && v.safeParse(emailSchema, email).success ? email : undefined,
    projectID: target.projectId,
    campaignID: target.campaignId,
    notes: enquiry.notes?.trim().slice(0, 5000),
    portal_login: login.login,
    portal_enquiry_id: enquiry.id,
    portal_received_at: enquiry.receivedAt,
    portal_project_id: enquiry.projectId,
    portal_project_name: enquiry.projectName?.slice(0, 500),
    portal_city: enquiry.city?.slice(0, 200),
    portal_listing_id: enquiry.listingId,
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined && value !== '')) as Record<string, string>;
};

const MOBILE_PROBLEM = 'mobile_number must be a 10-digit Indian mobile number starting with 6, 7, 8 or 9';

/**
 * The country code an enquiry's phone carries: given apart (`isd`, `country_code`), or written before
 * the number (`+91-9876543210`, `+44 7911 123456`); undefined when none.
 */
export const countryCodeOf = (enquiry: Enquiry): string | undefined => {
  const apart = enquiry.countryCode?.replace(/\D/g, '');
  if (apart) return apart.replace(/^0+/, '');
  const written = /^\s*(?:\+|00)(\d{1,4})[\s-]/.exec(enquiry.phone ?? '');
  return written?.[1];
};

/** The enquiry's validated fields, or a FieldValidationError (a `validation` record). */
export const enquiryFields = (login: Pick<PortalLogin, 'login' | 'projectId' | 'campaignId' | 'map'>, enquiry: Enquiry): ValidatedFields => {
  const body = enquiryBody(login, enquiry);
  const code = countryCodeOf(enquiry);
  if (code !== undefined && code !== '91') throw new FieldValidationError({ mobile_number: [MOBILE_PROBLEM] });
  return validate(body);
};

/** The enquiry without its empty parts: a reader's last step. */
export const presentEnquiry = (enquiry: Record<string, string | undefined>): Enquiry =>
  Object.fromEntries(Object.entries(enquiry).filter(([, value]) => value !== undefined && value !== '')) as unknown as Enquiry;
