/**
 * A counting proxy in front of DynamoDB Local (on unless `BENCH_PROXY=0`), as an outside check
 * puts one: its own process, node:http on both sides with keep-alive, one count per request by its
 * X-Amz-Target. The floor and the service both go through it, so it costs both legs alike; its CPU is
 * read like the other processes'. Prints `PROXY <url>` when listening; `GET /__count` answers the counts.
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, request } from 'node:http';
import { stopChild } from '../scripts/dynamodb-local.ts';

export interface RunningProxy {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export const startCountingProxy = (target: string): Promise<RunningProxy> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, target], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PROXY (\S+)/.exec(out);
      if (match) resolve({ endpoint: match[1]!, pid: child.pid!, stop: () => stopChild(child, exited) });
    });
    child.once('exit', (code) => reject(new Error(`the counting proxy exited (${code})`)));
  });

if (import.meta.main) {
  const target = new URL(process.argv[2]!);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts: Record<string, number> = {};
  const server = createServer((req, res) => {
    if (req.url === '/__count') return void res.end(JSON.stringify(counts));
    const operation = String(req.headers['x-amz-target'] ?? 'unknown').split('.').pop()!;
    counts[operation] = (counts[operation] ?? 0) + 1;
    const upstream = request(
      { agent, hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`PROXY http://127.0.0.1:${address.port}\n`);
  });
}
