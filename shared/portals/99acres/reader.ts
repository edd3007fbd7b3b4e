/**
 * 99acres' pull API (CONTRACT.md section 17): `POST` form-encoded, one field `xml` holding the query
 * (user name, password, the slice's first and last second in India time). The answer is XML with HTTP
 * 200 either way: `<Xml ActionStatus="true">` and its `<Resp>`s, or `ActionStatus="false"` with an
 * `<ErrorDetail>`. Values may be CDATA and padded; the enquiry's id may be `QueryId` or `TblId`.
 */
import { presentEnquiry } from '../../pulled/enquiries.ts';
import { statusFailure } from '../../pulled/http.ts';
import { PortalFailure, type Enquiry, type PortalReader } from '../../pulled/types.ts';
import { fromIndiaTime, indiaTime } from '../../pulled/windows.ts';
import { many, parseXml, textOf } from '../../pulled/xml.ts';

const escapeXml = (text: string): string => text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** The query 99acres reads, its values escaped. */
export const queryXml = (user: string, password: string, from: Date, to: Date): string =>
  `<?xml version='1.0'?><query><user_name>${escapeXml(user)}</user_name><pswd>${escapeXml(password)}</pswd>` +
  `<start_date>${indiaTime(from)}</start_date><end_date>${indiaTime(to)}</end_date></query>`;

/** An error's words that name the credential. */
const CREDENTIAL_WORDS = /authenticat|user\s*name|username|password|pswd/i;

export const ninetyNineAcresReader: PortalReader = {
  async read({ baseUrl, login, credential, from, to }, http) {
    const answer = await http.send({
      url: baseUrl,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xml: queryXml(login, credential, from, to) }).toString(),
    });
    const refused = statusFailure(answer.status);
    if (refused) throw refused;
    const root = parseXml(answer.body).Xml as Record<string, unknown> | undefined;
    if (!root || typeof root !== 'object') throw new PortalFailure('malformed_answer', 'the answer has no Xml element');
    const status = textOf(root['@ActionStatus'])?.toLowerCase();
    if (status === 'false') {
      const detail = many(root.ErrorDetail)[0] as Record<string, unknown> | undefined;
      const code = textOf(detail?.Code) ?? '';
      const message = textOf(detail?.Message) ?? '';
      const words = `99acres refused the query${code ? ` (code ${code.slice(0, 40)})` : ''}${message ? `: ${message.slice(0, 200)}` : ''}`;
      throw new PortalFailure(CREDENTIAL_WORDS.test(message) ? 'credential_refused' : 'portal_refused', words);
    }
    if (status !== 'true') throw new PortalFailure('malformed_answer', 'the answer has no ActionStatus');
    return many(root.Resp).map(enquiryOf);
  },
};

const enquiryOf = (resp: unknown): Enquiry => {
  const node = (typeof resp === 'object' && resp !== null ? resp : {}) as Record<string, unknown>;
  const query = (many(node.QryDtl)[0] ?? {}) as Record<string, unknown>;
  const contact = (many(node.CntctDtl)[0] ?? {}) as Record<string, unknown>;
  const id = textOf(query['@QueryId']) || textOf(query['@TblId']) || textOf(query.QueryId) || textOf(query.TblId);
  if (!id) throw new PortalFailure('malformed_answer', 'an enquiry has neither QueryId nor TblId');
  const received = fromIndiaTime(textOf(query.RcvdOn));
  return presentEnquiry({
    id,
    name: textOf(contact.Name),
    phone: textOf(contact.Phone),
    email: textOf(contact.Email),
    notes: textOf(query.QryInfo),
    receivedAt: received?.toISOString(),
    projectId: textOf(query.ProjId),
    projectName: textOf(query.ProjName),
    city: textOf(query.CityName),
    listingId: textOf(query.PROPERTY_CODE),
  });
};
