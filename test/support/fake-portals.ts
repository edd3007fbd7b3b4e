/**
 * The portals' pull APIs faked on their real wire (CONTRACT.md section 17), from captured shapes: a
 * local HTTP server per portal that checks what the service sends as the portal does, answers the
 * enquiries a test put there for the window asked, and fails on demand (a 500, a hang, a reset,
 * garbage, a DOCTYPE, an answer over 10 MiB, a refused credential). Every request is kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PortalFault = 'server_error' | 'hang' | 'reset' | 'garbage' | 'doctype' | 'huge' | 'refused';

export interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** One portal's fake: `answer` turns a request into status, type and body. */
export const fakePortalServer = async (answer: (request: FakeRequest, response: ServerResponse) => { status: number; type: string; body: string } | undefined) => {
  const requests: FakeRequest[] = [];
  const faults: PortalFault[] = [];
  let always: PortalFault | undefined;
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((message, response) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      const request = { method: message.method ?? 'GET', url: new URL(message.url ?? '/', 'http://localhost'), headers: message.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const fault = faults.shift() ?? always;
      if (fault === 'hang') return;
      if (fault === 'reset') return void message.socket.destroy();
      if (fault === 'server_error') return void response.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      if (fault === 'garbage') return void response.writeHead(200, { 'content-type': 'text/xml' }).end('<Xml ActionStatus="true"><Resp><QryDtl');
      if (fault === 'doctype')
        return void response
          .writeHead(200, { 'content-type': 'text/xml' })
          .end('<?xml version="1.0"?><!DOCTYPE Xml [<!ENTITY boom "boom">]><Xml ActionStatus="true"><Resp><CntctDtl><Name>&boom;</Name></CntctDtl></Resp></Xml>');
      if (fault === 'huge') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const block = Buffer.alloc(1024 * 1024, 0x20);
        for (let i = 0; i < 11; i++) response.write(block);
        return void response.end('{}');
      }
      const answered = answer(request, response);
      if (!answered) return;
      response.writeHead(answered.status, { 'content-type': answered.type }).end(answered.body);
    });
  });
  server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    /** The next requests fail so, one each, in order. */
    failNext: (...next: PortalFault[]) => void faults.push(...next),
    /** Every request fails so until `always(undefined)`. */
    always: (fault: PortalFault | undefined) => void (always = fault),
    /** Faults asked for and not yet met are dropped (a pull that never reached the portal left one). */
    clearFaults: () => void (faults.length = 0),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

// ---- 99acres ----------------------------------------------------------------------------------------

export interface NinetyNineAcresEnquiry {
  readonly id: string;
  /** `TblId` instead of `QueryId`, as some accounts' answers carry it. */
  readonly idAttribute?: 'QueryId' | 'TblId';
  /** India time, `YYYY-MM-DD HH:MM:SS`. */
  readonly receivedOn: string;
  readonly name?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly info?: string;
  readonly projectId?: string;
  readonly projectName?: string;
  readonly city?: string;
  readonly propertyCode?: string;
}

const cdata = (text: string | undefined) => (text === undefined ? '' : `<![CDATA[  ${text}  ]]>`);
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** 99acres' answer: `<Xml ActionStatus="true">` with one `<Resp>` per enquiry, values in padded CDATA. */
export const ninetyNineAcresXml = (enquiries: readonly NinetyNineAcresEnquiry[]): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Xml ActionStatus="true">` +
  enquiries
    .map(
      (e) =>
        `<Resp><QryDtl ${e.idAttribute ?? 'QueryId'}="${e.id}"><QryInfo>${cdata(e.info)}</QryInfo><RcvdOn> ${e.receivedOn} </RcvdOn>` +
        `<ProjId>${e.projectId ?? ''}</ProjId><ProjName>${cdata(e.projectName)}</ProjName><CityName>${e.city ?? ''}</CityName><PROPERTY_CODE>${e.propertyCode ?? ''}</PROPERTY_CODE></QryDtl>` +
        `<CntctDtl><Name>${cdata(e.name)}</Name><Email>${e.email === undefined ? '' : escaped(e.email)}</Email><Phone> ${e.phone ?? ''} </Phone></CntctDtl></Resp>`,
    )
    .join('') +
  `</Xml>`;

const IST_MS = 330 * 60_000;
const fromIst = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`) - IST_MS;

/** The query 99acres read from a request: its `xml` field's values (unescaped). */
export const ninetyNineAcresQuery = (request: FakeRequest) => {
  const xml = new URLSearchParams(request.body).get('xml') ?? '';
  const value = (tag: string) =>
    (new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  return { xml, user: value('user_name'), password: value('pswd'), start: value('start_date'), end: value('end_date') };
};

/**
 * 99acres faked: logins with their passwords and their enquiries; a query answers those received
 * within its start and end (India time, inclusive), `ActionStatus="false"` for a wrong password.
 */
export const fakeNinetyNineAcres = async () => {
  const accounts = new Map<string, { password: string; enquiries: NinetyNineAcresEnquiry[] }>();
  const server = await fakePortalServer((request) => {
    const query = ninetyNineAcresQuery(request);
    const typed = request.headers['content-type'] === 'application/x-www-form-urlencoded';
    const account = accounts.get(query.user);
    if (!typed || !query.xml.startsWith("<?xml version='1.0'?><query>")) {
      return { status: 200, type: 'text/xml', body: '<Xml ActionStatus="false"><ErrorDetail><Code>100</Code><Message>Invalid query</Message></ErrorDetail></Xml>' };
    }
    if (!account || account.password !== query.password) {
      return {
        status: 200,
        type: 'text/xml',
        body: '<?xml version="1.0"?><Xml ActionStatus="false"><ErrorDetail><Code>102</Code><Message><![CDATA[Authentication failed: invalid user name or password]]></Message></ErrorDetail></Xml>',
      };
    }
    const [from, to] = [fromIst(query.start), fromIst(query.end)];
    return { status: 200, type: 'text/xml', body: ninetyNineAcresXml(account.enquiries.filter((e) => fromIst(e.receivedOn) >= from && fromIst(e.receivedOn) <= to)) };
  });
  return {
    ...server,
    login: (user: string, password: string) => {
      const account = { password, enquiries: [] as NinetyNineAcresEnquiry[] };
      accounts.set(user, account);
      return { add: (...enquiries: NinetyNineAcresEnquiry[]) => void account.enquiries.push(...enquiries), setPassword: (next: string) => void (account.password = next) };
    },
  };
};

/** A time as 99acres writes it: India time, `YYYY-MM-DD HH:MM:SS`. */
export const istText = (at: Date): string => new Date(at.getTime() + IST_MS).toISOString().slice(0, 19).replace('T', ' ');

// ---- MagicBricks ------------------------------------------------------------------------------------

export interface MagicbricksLead {
  readonly id: string;
  /** India time, `yyyyMMdd` and `HHmmss`. */
  readonly dt: string;
  readonly time: string;
  readonly name?: string;
  readonly email?: string;
  readonly mobile?: string;
  readonly isd?: string;
  readonly msg?: string;
  readonly city?: string;
  readonly locality?: string;
  readonly project?: string;
  readonly pid?: string;
}

/**
 * MagicBricks faked: keys as issued, each with its login id's leads; a request answers those of the
 * days asked (India time, inclusive). An unknown key gets `{"status": "error", "errormsg": ...}`;
 * `denyAll()` answers every request with the HTML "Access Denied" page of an address not allow-listed.
 */
export const fakeMagicbricks = async () => {
  const keys = new Map<string, { loginId: string; leads: MagicbricksLead[] }>();
  let denied = false;
  const server = await fakePortalServer((request) => {
    if (denied) return { status: 403, type: 'text/html', body: '<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>You don\'t have permission to access this server.</body></html>' };
    const key = request.url.searchParams.get('key') ?? '';
    const [start, end] = [request.url.searchParams.get('startDate') ?? '', request.url.searchParams.get('endDate') ?? ''];
    const account = keys.get(key);
    if (!account) return { status: 200, type: 'application/json', body: JSON.stringify({ status: 'error', errormsg: 'Invalid key' }) };
    const leads = account.leads.filter((lead) => lead.dt >= start && lead.dt <= end).map((lead) => ({ loginid: account.loginId, ...lead }));
    return { status: 200, type: 'application/json', body: JSON.stringify({ leadPojo: { leads } }) };
  });
  return {
    ...server,
    deny: (value: boolean) => void (denied = value),
    key: (loginId: string, key: string) => {
      const account = { loginId, leads: [] as MagicbricksLead[] };
      keys.set(key, account);
      return { add: (...leads: MagicbricksLead[]) => void account.leads.push(...leads) };
    },
  };
};

/** A time as MagicBricks writes it: India time, `yyyyMMdd` and `HHmmss`. */
export const mbTime = (at: Date) => {
  const ist = istText(at);
  return { dt: ist.slice(0, 10).replaceAll('-', ''), time: ist.slice(11).replaceAll(':', '') };
};

// ---- Housing.com ------------------------------------------------------------------------------------

export interface HousingLead {
  /** Seconds since the epoch, as Housing.com answers it. */
  readonly lead_date: number;
  readonly lead_name?: string;
  readonly lead_email?: string;
  readonly lead_phone?: string;
  readonly country_code?: string;
  readonly project_id?: string;
  readonly flat_id?: string;
  readonly project_name?: string;
  readonly locality_name?: string;
  readonly city_name?: string;
  readonly service_type?: string;
}

/**
 * Housing.com faked: profiles with their encryption key and their feeds' leads. A request's hash must be
 * the HMAC-SHA256 of its current_time keyed with the profile's key (401 otherwise); it answers the
 * leads of its window (start inclusive, end exclusive), at most per_page of them (the API has no pages).
 */
export const fakeHousing = async () => {
  const { createHmac } = await import('node:crypto');
  const profiles = new Map<string, { key: string; feeds: Record<'builder' | 'broker', HousingLead[]> }>();
  const server = await fakePortalServer((request) => {
    const q = request.url.searchParams;
    const feed = request.url.pathname === '/api/v0/get-builder-leads' ? 'builder' : request.url.pathname === '/api/v0/get-broker-leads' ? 'broker' : undefined;
    if (!feed) return { status: 404, type: 'application/json', body: JSON.stringify({ apiErrors: [{ message: 'Not found' }] }) };
    const profile = profiles.get(q.get('id') ?? '');
    const currentTime = q.get('current_time') ?? '';
    if (!profile || q.get('hash') !== createHmac('sha256', profile.key).update(currentTime).digest('hex')) {
      return { status: 401, type: 'application/json', body: JSON.stringify({ apiErrors: [{ message: 'Invalid hash' }] }) };
    }
    const [from, to, perPage] = [Number(q.get('start_date')), Number(q.get('end_date')), Number(q.get('per_page'))];
    const data = profile.feeds[feed].filter((lead) => lead.lead_date >= from && lead.lead_date < to).slice(0, perPage);
    return { status: 200, type: 'application/json', body: JSON.stringify({ data }) };
  });
  return {
    ...server,
    profile: (id: string, key: string) => {
      const profile = { key, feeds: { builder: [] as HousingLead[], broker: [] as HousingLead[] } };
      profiles.set(id, profile);
      return { add: (feed: 'builder' | 'broker', ...leads: HousingLead[]) => void profile.feeds[feed].push(...leads), setKey: (next: string) => void (profile.key = next) };
    },
  };
};
