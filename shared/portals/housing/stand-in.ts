/** Housing.com's stand-in for `npm start` (shared/pulled/stand-in.ts): its JSON answer to its signed query, for any profile and key. */
import { sampleEnquiries, serveStandIn } from '../../pulled/stand-in.ts';

export const startStandIn = () =>
  serveStandIn((request) => {
    const q = request.url.searchParams;
    if (!/^\/api\/v0\/get-(builder|broker)-leads$/.test(request.url.pathname)) return { status: 404, type: 'application/json', body: JSON.stringify({ apiErrors: [{ message: 'Not found' }] }) };
    if (!/^[0-9a-f]{64}$/.test(q.get('hash') ?? '')) return { status: 401, type: 'application/json', body: JSON.stringify({ apiErrors: [{ message: 'Invalid hash' }] }) };
    const [from, to] = [Number(q.get('start_date')) * 1000, Number(q.get('end_date')) * 1000];
    const data = sampleEnquiries(`housing:${q.get('id') ?? ''}`, new Date(from), new Date(to)).map((e) => ({
      lead_date: Math.floor(e.at.getTime() / 1000),
      lead_name: e.name,
      lead_email: e.email,
      lead_phone: e.mobile,
      country_code: '+91',
      project_id: e.projectId,
      project_name: e.projectName,
      locality_name: 'Baner',
      city_name: e.city,
      service_type: 'buy',
    }));
    return { status: 200, type: 'application/json', body: JSON.stringify({ data }) };
  });
