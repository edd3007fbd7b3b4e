/**
 * A Graph lead as a social-endpoint body (CONTRACT.md section 8): `name` from `full_name` (else
 * `first_name` + `last_name`), `mobile_number` from `phone_number`, `email`, `location` from `city`,
 * `platform`, the ad names when present, and the form's project and campaign; every other `field_data`
 * entry (the form's own questions) a `question: answer` line of `notes`, as Google's columns are
 * (section 20). The body then goes through the social endpoint's own validator, so a Meta lead obeys
 * exactly its rules.
 */
import { notesOfAnswers, type FormAnswer } from '../domain/form-answers.ts';
import type { MetaFormMapping } from './pages.ts';
import type { GraphLead } from './graph.ts';

const firstValue = (lead: GraphLead, name: string): string | undefined => {
  const field = lead.field_data?.find((entry) => entry?.name === name);
  const value = field?.values?.[0];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

/** The `field_data` entries section 8 maps to fields of their own: never in notes. */
const MAPPED_FIELDS = new Set(['full_name', 'first_name', 'last_name', 'phone_number', 'email', 'city']);

/** The form's own questions that were answered, in the order sent; a question of several choices answers them all. */
const customAnswersOf = (lead: GraphLead): FormAnswer[] =>
  (lead.field_data ?? []).flatMap((entry) => {
    const question = typeof entry?.name === 'string' ? entry.name.trim() : '';
    const answer = (entry?.values ?? [])
      .filter((value): value is string => typeof value === 'string' && value.trim() !== '')
      .map((value) => value.trim())
      .join(', ');
    return question === '' || MAPPED_FIELDS.has(question) || answer === '' ? [] : [{ question, answer }];
  });

export const socialBodyOf = (lead: GraphLead, form: MetaFormMapping): Record<string, unknown> => {
  const fullName = firstValue(lead, 'full_name');
  const parts = [firstValue(lead, 'first_name'), firstValue(lead, 'last_name')].filter((part) => part !== undefined).map((part) => part.trim());
  const name = fullName ?? (parts.length > 0 ? parts.join(' ') : undefined);
  const optional = (field: string, value: unknown) => (typeof value === 'string' && value.trim() !== '' ? { [field]: value } : {});
  return {
    ...optional('name', name),
    ...optional('mobile_number', firstValue(lead, 'phone_number')),
    ...optional('email', firstValue(lead, 'email')),
    ...optional('location', firstValue(lead, 'city')),
    ...optional('notes', notesOfAnswers(customAnswersOf(lead))),
    ...optional('platform', lead.platform),
    ...optional('social_campaign', lead.campaign_name),
    ...optional('social_adset', lead.adset_name),
    ...optional('social_ad', lead.ad_name),
    projectID: form.projectID,
    campaignID: form.campaignID,
  };
};
