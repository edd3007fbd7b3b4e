/** MagicBricks' stand-in for `npm start` (shared/pulled/stand-in.ts): its JSON answer to its day-granular query, for any key. */
import { sampleEnquiries, serveStandIn } from '../../pulled/stand-in.ts';
import { fromIndiaTime, indiaTime } from '../../pulled/windows.ts';

export const startStandIn = () =>
  serveStandIn((request) => {
    const key = request.url.searchParams.get('key') ?? '';
    const from = fromIndiaTime(`${request.url.searchParams.get('startDate') ?? ''}000000`);
    const to = fromIndiaTime(`${request.url.searchParams.get('endDate') ?? ''}000000`);
    if (!key || !from || !to) return { status: 200, type: 'application/json', body: JSON.stringify({ status: 'error', errormsg: 'Invalid key or dates' }) };
    const leads = sampleEnquiries(`mb:${key}`, from, new Date(to.getTime() + 24 * 3600_000)).map((e) => {
      const ist = indiaTime(e.at);
      return {
        id: e.id,
        loginid: 'stand-in',
        name: e.name,
        email: e.email,
        mobile: e.mobile,
        isd: '91',
        dt: ist.slice(0, 10).replaceAll('-', ''),
        time: ist.slice(11).replaceAll(':', ''),
        msg: e.notes,
        city: e.city,
        locality: 'Baner',
        project: e.projectName,
        pid: e.projectId,
      };
    });
    return { status: 200, type: 'application/json', body: JSON.stringify({ leadPojo: { leads } }) };
  });
