/**
 * MagicBricks' pull API (CONTRACT.md section 17): `GET ?key=K&startDate=yyyyMMdd&endDate=yyyyMMdd`,
 * the slice's first and last day in India time (the API is day-granular: what it answers beyond the
 * slice is stored once like any enquiry), the key as issued (percent-encoded on the wire, which the
 * portal reads back as issued). JSON `{"leadPojo": {"leads": [...]}}`; a body with `"status": "error"`
 * or an `errormsg`, or HTML (an "Access Denied" page when the service's address is not allow-listed),
 * is a failure.
 */
import { presentEnquiry } from '../../pulled/enquiries.ts';
import { statusFailure } from '../../pulled/http.ts';
import { PortalFailure, type Enquiry, type PortalReader } from '../../pulled/types.ts';
import { fromIndiaTime, indiaDay } from '../../pulled/windows.ts';

const CREDENTIAL_WORDS = /invalid\s*key|key\s*(is\s*)?invalid|unauthori[sz]ed|authenticat|credential|not\s*authori[sz]ed/i;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined);

export const magicbricksReader: PortalReader = {
  async read({ baseUrl, credential, from, to }, http) {
    const url = `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}key=${encodeURIComponent(credential)}&startDate=${indiaDay(from)}&endDate=${indiaDay(to)}`;
    const answer = await http.send({ url, method: 'GET', headers: { accept: 'application/json' } });
    const refused = statusFailure(answer.status);
    if (/^\s*</.test(answer.body) || answer.contentType.includes('html')) {
      const words = answer.body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
      // An "Access Denied" page: the service's outbound address is not on the portal's allow-list.
      const advice = /access\s*denied/i.test(words) ? ' (ask MagicBricks to allow-list the service’s outbound address)' : '';
      throw new PortalFailure(CREDENTIAL_WORDS.test(words) ? 'credential_refused' : 'portal_refused', `MagicBricks answered a page, not enquiries${advice}: ${words}`);
    }
    if (refused) throw refused;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      throw new PortalFailure('malformed_answer', 'the answer is not JSON');
    }
    if (typeof body !== 'object' || body === null) throw new PortalFailure('malformed_answer', 'the answer is not a JSON object');
    const { status, errormsg, leadPojo } = body as Record<string, unknown>;
    if (status === 'error' || errormsg !== undefined) {
      const words = (text(errormsg) ?? text((body as Record<string, unknown>).message) ?? 'an error').slice(0, 200);
      throw new PortalFailure(CREDENTIAL_WORDS.test(words) ? 'credential_refused' : 'portal_refused', `MagicBricks refused the request: ${words}`);
    }
    const leads = (leadPojo as { leads?: unknown } | undefined)?.leads ?? [];
    if (!Array.isArray(leads)) throw new PortalFailure('malformed_answer', 'leadPojo.leads is not a list');
    return leads.map(enquiryOf);
  },
};

const enquiryOf = (lead: unknown): Enquiry => {
  const l = (typeof lead === 'object' && lead !== null ? lead : {}) as Record<string, unknown>;
  const id = text(l.id);
  if (!id) throw new PortalFailure('malformed_answer', 'an enquiry has no id');
  const received = fromIndiaTime(`${text(l.dt) ?? ''}${text(l.time) ?? ''}`);
  return presentEnquiry({
    id,
    name: text(l.name),
    phone: text(l.mobile),
    countryCode: text(l.isd),
    email: text(l.email),
    notes: text(l.msg),
    receivedAt: received?.toISOString(),
    projectId: text(l.pid),
    projectName: text(l.project),
    city: text(l.city),
  });
};
