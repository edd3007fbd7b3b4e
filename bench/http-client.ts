/** A keep-alive HTTP client: section 2's single measured requests, and section 3's load loops (bench/load.ts). */
import { Agent, request } from 'node:http';

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

export const httpClient = (baseUrl: string, { maxSockets = 64 }: { maxSockets?: number } = {}) => {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const { hostname, port } = new URL(baseUrl);
  const post = (path: string, headers: Record<string, string>, body: string): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const req = request(
        { agent, hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
};
