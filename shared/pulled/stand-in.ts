/**
 * What `npm start` serves in place of a portal whose URL is unset (CONTRACT.md section 17, "Locally"):
 * each portal's stand-in (shared/portals/<portal>/stand-in.ts) answers on its portal's wire, for any
 * login and credential, sample enquiries: one every two minutes of the last ten minutes of the window
 * asked, each with an id, a name and a number made of its login and minute, so that a tester sees a
 * pulled lead within a minute of connecting a login, and a pull asked again gets the same enquiries.
 * Written once: a portal's stand-in only renders these in its wire.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SampleEnquiry {
  /** Unique per login and minute. */
  readonly id: string;
  readonly at: Date;
  readonly name: string;
  /** 10 digits, starting with 9. */
  readonly mobile: string;
  readonly email: string;
  readonly notes: string;
  readonly projectId: string;
  readonly projectName: string;
  readonly city: string;
}

const NAMES = ['Aarav Sharma', 'Diya Patel', 'Vihaan Reddy', 'Ananya Iyer', 'Kabir Singh', 'Isha Nair', 'Reyansh Gupta', 'Saanvi Rao'];
const EVERY_MS = 2 * 60_000;
const RECENT_MS = 10 * 60_000;

/** The sample enquiries of a login within [from, to), of the last ten minutes before `now`. */
export const sampleEnquiries = (login: string, from: Date, to: Date, now = new Date()): SampleEnquiry[] => {
  const start = Math.max(from.getTime(), now.getTime() - RECENT_MS);
  const end = Math.min(to.getTime(), now.getTime());
  const samples: SampleEnquiry[] = [];
  for (let at = Math.ceil(start / EVERY_MS) * EVERY_MS; at < end; at += EVERY_MS) {
    const digest = createHash('sha256').update(`${login}\n${at}`).digest();
    const mobile = `9${String(digest.readUInt32BE(0) % 1_000_000_000).padStart(9, '0')}`;
    const name = NAMES[digest[4]! % NAMES.length]!;
    samples.push({
      id: `S${digest.readUInt32BE(5)}${String(at / 60_000)}`,
      at: new Date(at),
      name,
      mobile,
      email: `${name.toLowerCase().replace(/\s+/g, '.')}@example.com`,
      notes: 'Sample enquiry from the local stand-in: interested in a 2 BHK, please call back.',
      projectId: '1001',
      projectName: 'Stand-in Heights',
      city: 'Pune',
    });
  }
  return samples;
};

export interface StandInRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface StandInAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

export interface RunningStandIn {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves a stand-in on 127.0.0.1 on a free port; `path` is appended to its URL (Housing.com's base has none). */
export const serveStandIn = async (answer: (request: StandInRequest) => StandInAnswer, path = '/'): Promise<RunningStandIn> => {
  const server = createServer((message: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => {
      const answered = answer({ method: message.method ?? 'GET', url: new URL(message.url ?? '/', 'http://127.0.0.1'), headers: message.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answered.status, { 'content-type': answered.type }).end(answered.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path === '/' ? '/' : path}`,
    // The pull's keep-alive connections would hold close() open: they are ended with it.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
