// A fresh process's cold start, timed from inside: `node cold-driver.mjs <module> import|handler`.
// Plain JavaScript, so no type stripping is loaded into the measured process. With `handler`, the
// module's `handler` answers each API Gateway event of BENCH_EVENTS (a JSON array) in turn: the first
// is the cold request, the next ones show what the same request costs once the process is warm.
// Prints one BENCH line of JSON; times are milliseconds since the process started
// (performance.timeOrigin), CPU is this process's user + system time.
const [target, mode] = process.argv.slice(2);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const importStart = performance.now();
const loaded = await import(target);
const imported = performance.now();
const importCpuMs = cpuMs();
const statuses = [];
const requestMs = [];
let answeredMs = imported;
let answeredCpuMs = importCpuMs;
if (mode === 'handler') {
  const context = {
    functionName: 'bench-cold',
    awsRequestId: 'bench-cold',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 10_000,
  };
  for (const [i, event] of JSON.parse(process.env.BENCH_EVENTS).entries()) {
    const start = performance.now();
    statuses.push((await loaded.handler(event, context)).statusCode);
    requestMs.push(performance.now() - start);
    if (i === 0) {
      answeredMs = performance.now();
      answeredCpuMs = cpuMs();
    }
  }
}
process.stdout.write(
  `\nBENCH ${JSON.stringify({ bootMs: importStart, importMs: imported - importStart, importCpuMs, answeredMs, answeredCpuMs, requestMs, statuses })}\n`,
);
process.exit(0);
