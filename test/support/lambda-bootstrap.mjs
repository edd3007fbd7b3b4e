/**
 * What Lambda's Node.js runtime does with a function, where AWS's runtime interface client
 * (`aws-lambda-ric`) is not installed (test/support/lambda-runtime.ts says when): load the module `_HANDLER`
 * names from LAMBDA_TASK_ROOT (an ESM `index.mjs` as the stack's bundles are, else `.js`/`.cjs`), report an
 * init error to the Runtime API if it fails, then take invocations from the Runtime API one at a time and
 * post each answer, or its error, back. The protocol is Lambda's (2018-06-01 Runtime API); the context is
 * the one the Node.js runtime gives a handler.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const api = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;
const taskRoot = process.env.LAMBDA_TASK_ROOT;
const [moduleName, handlerName] = process.env._HANDLER.split('.');

const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const errorOf = (error) => ({
  errorType: error?.name ?? 'Error',
  errorMessage: error?.message ?? String(error),
  trace: String(error?.stack ?? '').split('\n'),
});

let handler;
try {
  const file = ['.mjs', '.js', '.cjs'].map((ext) => path.join(taskRoot, `${moduleName}${ext}`)).find((candidate) => existsSync(candidate));
  if (!file) throw Object.assign(new Error(`Cannot find module '${moduleName}'`), { name: 'Runtime.ImportModuleError' });
  const loaded = await import(pathToFileURL(file).href);
  handler = loaded[handlerName];
  if (typeof handler !== 'function') throw Object.assign(new Error(`${moduleName}.${handlerName} is undefined or not exported`), { name: 'Runtime.HandlerNotFound' });
} catch (error) {
  await post(`${api}/init/error`, errorOf(error));
  process.exit(1);
}

for (;;) {
  const next = await fetch(`${api}/invocation/next`);
  const requestId = next.headers.get('lambda-runtime-aws-request-id');
  const deadline = Number(next.headers.get('lambda-runtime-deadline-ms'));
  const event = await next.json();
  const context = {
    awsRequestId: requestId,
    invokedFunctionArn: next.headers.get('lambda-runtime-invoked-function-arn'),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
  try {
    const result = await handler(event, context);
    await post(`${api}/invocation/${requestId}/response`, result ?? null);
  } catch (error) {
    await post(`${api}/invocation/${requestId}/error`, errorOf(error));
  }
}
