/** 99acres' stand-in for `npm start` (shared/pulled/stand-in.ts): its XML answer to its form-encoded query, for any login. */
import { sampleEnquiries, serveStandIn } from '../../pulled/stand-in.ts';
import { fromIndiaTime, indiaTime } from '../../pulled/windows.ts';

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';

export const startStandIn = () =>
  serveStandIn((request) => {
    const xml = new URLSearchParams(request.body).get('xml') ?? '';
    const [from, to] = [fromIndiaTime(tag(xml, 'start_date')), fromIndiaTime(tag(xml, 'end_date'))];
    if (!from || !to) return { status: 200, type: 'text/xml', body: '<Xml ActionStatus="false"><ErrorDetail><Code>100</Code><Message>Invalid date</Message></ErrorDetail></Xml>' };
    // The end second is the window's own: what 99acres answers is inclusive.
    const enquiries = sampleEnquiries(tag(xml, 'user_name'), from, new Date(to.getTime() + 1000));
    const resps = enquiries.map(
      (e) =>
        `<Resp><QryDtl QueryId="${e.id}"><QryInfo><![CDATA[ ${e.notes} ]]></QryInfo><RcvdOn>${indiaTime(e.at)}</RcvdOn><ProjId>${e.projectId}</ProjId><ProjName><![CDATA[${e.projectName}]]></ProjName><CityName>${e.city}</CityName><PROPERTY_CODE>R${e.projectId}</PROPERTY_CODE></QryDtl>` +
        `<CntctDtl><Name><![CDATA[ ${e.name} ]]></Name><Email>${e.email}</Email><Phone>+91-${e.mobile}</Phone></CntctDtl></Resp>`,
    );
    return { status: 200, type: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?><Xml ActionStatus="true">${resps.join('')}</Xml>` };
  });
