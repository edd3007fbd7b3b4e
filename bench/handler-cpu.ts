/**
 * Section 6 (issue 36): the CPU a warm new lead costs the handler in-process, against the bare SDK send
 * of the same TransactWriteItems, with the network replaced by a stub that answers as DynamoDB does.
 *
 * The stub records DynamoDB Local's real answer (status, headers, body) to each operation once, then
 * replays it as a stream without a socket: what is left is the CPU of the process, not the wire's or
 * DynamoDB's. The handler runs on the service's own client (`createDynamoDbClient`, the document
 * client, the repository, the runtime); the bare send is a `DynamoDBClient` as the SDK builds it by
 * default (region, endpoint, credentials, nothing else) sending the handler's recorded wire input with
 * `TransactWriteItemsCommand`. So the ratio holds everything the service spends on a lead beyond what
 * the SDK itself must spend on the one transaction: its Middy chain, validation, domain, marshalling,
 * and its client's settings (for better: a trimmed SDK; for worse: the deadline wrapper). A third
 * subject, the same bare send through `createDynamoDbClient`, tells the two apart. CPU is
 * `process.cpuUsage()` over a block of calls; the subjects alternate in short blocks (tens of calls,
 * order rotating) over many rounds, because on a shared machine the CPU one call costs drifts by a
 * third within a minute: long blocks measure the drift, not the subjects.
 */
import { Readable } from 'node:stream';
import { DynamoDBClient, TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { HttpResponse } from '@smithy/core/protocols';
import type { HttpHandlerOptions, HttpRequest, RequestHandler } from '@smithy/types';
import { ATTEMPT_TIMEOUT_MS, createDocumentClient, createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { deadlineBoundHandler } from '../shared/dynamodb/deadline-bound.ts';
import { requestPathStores } from '../shared/dynamodb/repository.ts';
import { leadRuntime } from '../shared/runtime.ts';
import type { Subject } from './floor.ts';
import { apiGatewayEvent, lambdaContext } from '../shared/http/api-gateway-event.ts';
import type { LeadContext, LeadEvent, LeadResponse } from '../shared/http/lambda.ts';
import { invoke, leadBody, pathOf, quietLog, type BenchService } from './service.ts';
import { percentile, round } from './stats.ts';

const mean = (xs: readonly number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;

type AnyRequestHandler = RequestHandler<any, any, HttpHandlerOptions>;

interface Recorded {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const readAll = async (body: unknown): Promise<Buffer> => {
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

/**
 * An HTTP handler that passes requests to DynamoDB Local until `replay()`, keeping the last answer to
 * each operation (X-Amz-Target) and the last TransactWriteItems body; then answers from what it kept.
 */
export const recordingStub = (real: AnyRequestHandler) => {
  const answers = new Map<string, Recorded>();
  let replaying = false;
  let lastTransaction: string | undefined;
  const answer = ({ statusCode, headers, body }: Recorded) =>
    ({ response: new HttpResponse({ statusCode, headers: { ...headers }, body: Readable.from([body]) }) });
  const handler: AnyRequestHandler = {
    handle: async (request: HttpRequest, options?: HttpHandlerOptions) => {
      const target = String(request.headers['x-amz-target']);
      if (replaying) {
        const kept = answers.get(target);
        if (!kept) throw new Error(`the stub has no answer recorded for ${target}`);
        return answer(kept);
      }
      if (target.endsWith('.TransactWriteItems')) lastTransaction = String(request.body);
      const { response } = await real.handle(request, options);
      const recorded = { statusCode: response.statusCode, headers: { ...response.headers }, body: await readAll(response.body) };
      answers.set(target, recorded);
      return answer(recorded);
    },
  };
  return {
    handler,
    replay: () => void (replaying = true),
    /** The wire body of the last TransactWriteItems passed through: the low-level input, marshalled. */
    lastTransaction: () => lastTransaction,
  };
};

export interface HandlerCpuResult {
  readonly rounds: number;
  readonly leadsPerRound: number;
  /** Mean over the rounds of CPU µs per lead or send (equal rounds: total CPU over total calls). */
  readonly handlerUs: number;
  readonly bareUs: number;
  readonly serviceClientUs: number;
  /** handler / bare, from the means; and the quartiles of the per-round ratios. */
  readonly handlerOverBare: number;
  readonly roundRatios: readonly number[];
  readonly serviceClientOverBare: number;
  readonly errors: number;
}

export const HANDLER_CPU_GOAL = 1.3;

/**
 * The website handler of a warm container on the service's own client, its transport swapped for a
 * recording stub (createDynamoDbClient's deadline wrapper kept): two leads go to DynamoDB Local (the
 * cold one reads key and account), then every lead is answered from the recording. `makeClient`
 * builds another client in its place (an A/B of a client setting).
 */
export const stubbedWebsiteHandler = async (service: BenchService, subject: Subject, makeClient = createDynamoDbClient) => {
  const serviceClient = makeClient({ endpoint: service.endpoint });
  const stub = recordingStub(serviceClient.config.requestHandler as AnyRequestHandler);
  serviceClient.config.requestHandler = deadlineBoundHandler(stub.handler, ATTEMPT_TIMEOUT_MS);
  const runtime = leadRuntime({
    stores: requestPathStores(createDocumentClient({ client: serviceClient }), service.tables),
    configCacheTtlSeconds: 24 * 3600, // no re-read of key and account inside the measurement
    corsAllowedOrigins: ['*'],
    log: quietLog,
  });
  const handler = service.handler('website', runtime);
  let errors = 0;
  const record = async () => {
    const { status } = await invoke(handler, 'website', subject.apiKey, leadBody('website', subject.projectID, subject.campaignID));
    if (status !== 200) errors += 1;
  };
  await record(); // cold: key, account, transaction, all recorded from DynamoDB Local
  await record(); // warm: the transaction of a new lead
  const wire = stub.lastTransaction();
  if (!wire || errors) throw new Error('handler CPU: the recorded leads were not stored');
  stub.replay();
  // The events (a new mobile number each) are built before a block is timed, as API Gateway builds
  // them outside the function: what is timed is the handler, from its event to its answer.
  let events: LeadEvent[] = [];
  const post: CpuSubject = {
    prepare: (n) => {
      events = Array.from({ length: n }, () =>
        apiGatewayEvent({
          path: pathOf('website'),
          headers: { 'content-type': 'application/json', 'x-api-key': subject.apiKey },
          body: JSON.stringify(leadBody('website', subject.projectID, subject.campaignID)),
        }),
      );
    },
    run: async () => {
      const response = (await handler(events.pop()!, lambdaContext('lead-intake-website') as LeadContext)) as LeadResponse;
      if (response.statusCode !== 200) errors += 1;
    },
  };
  return { post, stub, wire, errors: () => errors };
};

/** A measured call, and what is made ready for a block of `n` calls before the block is timed. */
export interface CpuSubject {
  prepare?(n: number): void;
  run(): Promise<void>;
}

/** CPU µs per call of each subject, `rounds` blocks of `n` calls each, alternating, order rotating. */
export const interleavedCpu = async <K extends string>(subjects: Record<K, CpuSubject | (() => Promise<void>)>, rounds: number, n: number): Promise<Record<K, number[]>> => {
  const names = Object.keys(subjects) as K[];
  const block = async (name: K, count: number): Promise<number> => {
    const subject = subjects[name];
    const { prepare, run } = typeof subject === 'function' ? { prepare: undefined, run: subject } : subject;
    prepare?.(count);
    const start = process.cpuUsage();
    for (let i = 0; i < count; i += 1) await run();
    const spent = process.cpuUsage(start);
    return (spent.user + spent.system) / count;
  };
  // Warm-up: the JIT settles over the first thousands of calls.
  for (const name of names) await block(name, Math.max(n, 3_000));
  const perRound = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(r + k) % names.length]!;
      perRound[name].push(await block(name, n));
    }
  }
  return perRound;
};

export const measureHandlerCpu = async (service: BenchService, subject: Subject, { rounds, leads }: { rounds: number; leads: number }): Promise<HandlerCpuResult> => {
  const { post, stub, wire, errors } = await stubbedWebsiteHandler(service, subject);
  const input = JSON.parse(wire) as TransactWriteItemsCommandInput;
  const bareClient = new DynamoDBClient({
    region: process.env.AWS_REGION ?? 'local',
    endpoint: service.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: stub.handler,
  });
  // The service's own client settings, without the handler: the same bare send.
  const trimmedClient = createDynamoDbClient({ endpoint: service.endpoint });
  trimmedClient.config.requestHandler = deadlineBoundHandler(stub.handler, ATTEMPT_TIMEOUT_MS);

  const subjects = {
    handler: post,
    bare: async () => void (await bareClient.send(new TransactWriteItemsCommand(input))),
    serviceClient: async () => void (await trimmedClient.send(new TransactWriteItemsCommand(input))),
  };
  const perRound = await interleavedCpu(subjects, rounds, leads);
  bareClient.destroy();
  const handlerUs = mean(perRound.handler);
  const bareUs = mean(perRound.bare);
  const serviceClientUs = mean(perRound.serviceClient);
  const ratios = perRound.handler.map((h, i) => h / perRound.bare[i]!);
  return {
    rounds,
    leadsPerRound: leads,
    handlerUs: round(handlerUs, 1),
    bareUs: round(bareUs, 1),
    serviceClientUs: round(serviceClientUs, 1),
    handlerOverBare: round(handlerUs / bareUs, 2),
    roundRatios: [round(percentile(ratios, 25), 2), round(percentile(ratios, 75), 2)],
    serviceClientOverBare: round(serviceClientUs / bareUs, 2),
    errors: errors(),
  };
};
