/**
 * Housing.com's pull API (CONTRACT.md section 17): `GET {base}/api/v0/get-builder-leads` (the broker
 * feed: `get-broker-leads`) with the slice as seconds since the epoch, `current_time`, its HMAC-SHA256
 * keyed with the encryption key (lowercase hex), the profile id and `per_page=1000`. JSON `{"data":
 * [...]}`; `{"apiErrors": ...}` or a non-2xx answer is a failure (401: the credential). The API has no
 * pages: a window that answers exactly 1,000 enquiries is split in halves and each half asked again.
 * Its enquiries have no id: `h-` and the SHA-256 of the profile id, the phone's digits, `lead_date`
 * and `project_id` or `flat_id`.
 */
import { createHash, createHmac } from 'node:crypto';
import { presentEnquiry } from '../../pulled/enquiries.ts';
import { statusFailure } from '../../pulled/http.ts';
import { PortalFailure, type Enquiry, type PortalHttp, type PortalReader, type SliceRequest } from '../../pulled/types.ts';
import { fromIndiaTime } from '../../pulled/windows.ts';

export const HOUSING_PER_PAGE = 1000;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : undefined);
const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** The request's `hash`: HMAC-SHA256 of the decimal `current_time`, keyed with the encryption key, lowercase hex. */
export const housingHash = (encryptionKey: string, currentTime: number): string => createHmac('sha256', encryptionKey).update(String(currentTime)).digest('hex');

/** When Housing.com received a lead: seconds (or milliseconds) since the epoch, or India time. */
const receivedAt = (value: unknown): string | undefined => {
  const t = text(value);
  if (t === undefined) return undefined;
  if (/^\d{9,13}$/.test(t)) return new Date(t.length > 10 ? Number(t) : Number(t) * 1000).toISOString();
  const parsed = Date.parse(t);
  return (fromIndiaTime(t) ?? (/[zZ]|[+-]\d{2}:?\d{2}$/.test(t) && !Number.isNaN(parsed) ? new Date(parsed) : undefined))?.toISOString();
};

const readWindow = async (request: SliceRequest, http: PortalHttp, from: number, to: number): Promise<Enquiry[]> => {
  const currentTime = seconds(request.now);
  const feed = request.feed === 'broker' ? 'get-broker-leads' : 'get-builder-leads';
  const query = new URLSearchParams({
    start_date: String(from),
    end_date: String(to),
    current_time: String(currentTime),
    hash: housingHash(request.credential, currentTime),
    id: request.login,
    per_page: String(HOUSING_PER_PAGE),
  });
  const answer = await http.send({ url: `${request.baseUrl.replace(/\/+$/, '')}/api/v0/${feed}?${query}`, method: 'GET', headers: { accept: 'application/json' } });
  const refused = statusFailure(answer.status);
  if (refused) throw refused;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    throw new PortalFailure('malformed_answer', 'the answer is not JSON');
  }
  if (typeof body !== 'object' || body === null) throw new PortalFailure('malformed_answer', 'the answer is not a JSON object');
  const { apiErrors, data } = body as Record<string, unknown>;
  if (apiErrors !== undefined) {
    const words = JSON.stringify(apiErrors).slice(0, 200);
    throw new PortalFailure(/auth|hash|invalid\s*(key|id)|unauthori[sz]ed/i.test(words) ? 'credential_refused' : 'portal_refused', `Housing.com refused the request: ${words}`);
  }
  if (!Array.isArray(data)) throw new PortalFailure('malformed_answer', 'the answer has no data list');
  // As many as a page holds: there may be more. Each half is asked again (down to one second, which is taken as it is).
  if (data.length >= HOUSING_PER_PAGE && to - from > 1) {
    const middle = Math.floor((from + to) / 2);
    return [...(await readWindow(request, http, from, middle)), ...(await readWindow(request, http, middle, to))];
  }
  return data.map((lead) => enquiryOf(request.login, lead));
};

const enquiryOf = (profileId: string, lead: unknown): Enquiry => {
  const l = (typeof lead === 'object' && lead !== null ? lead : {}) as Record<string, unknown>;
  const phone = text(l.lead_phone);
  const date = text(l.lead_date) ?? '';
  const projectId = text(l.project_id);
  const flatId = text(l.flat_id);
  const id = `h-${createHash('sha256').update([profileId, (phone ?? '').replace(/\D/g, ''), date, projectId ?? flatId ?? ''].join('\n')).digest('hex')}`;
  return presentEnquiry({
    id,
    name: text(l.lead_name),
    phone,
    countryCode: text(l.country_code),
    email: text(l.lead_email),
    receivedAt: receivedAt(l.lead_date),
    projectId,
    projectName: text(l.project_name),
    city: text(l.city_name),
    listingId: flatId,
  });
};

export const housingReader: PortalReader = {
  read: (request, http) => readWindow(request, http, seconds(request.from), seconds(request.to)),
};
