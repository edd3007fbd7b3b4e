import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
const { esmRequireBanner, LAMBDA_CREDENTIALS, SDK_DEFAULT_CREDENTIALS } = await import(process.cwd() + '/lib/constructs/lead-function.ts');
for (const entry of ['functions/social/handler.ts', 'functions/meta-webhook/handler.ts', 'functions/meta-worker/handler.ts']) {
  const out = `/tmp/bundle-${entry.split('/')[1]}.mjs`;
  const r = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node24', mainFields: ['module', 'main'], banner: { js: esmRequireBanner }, alias: { [SDK_DEFAULT_CREDENTIALS]: LAMBDA_CREDENTIALS }, minify: true, outfile: out, metafile: true, logLevel: 'warning' });
  const code = readFileSync(out);
  const pk = {};
  for (const [input, v] of Object.entries(Object.values(r.metafile.outputs).find(o => o.inputs && Object.keys(o.inputs).length).inputs)) { const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); const k = m ? m[1] : "own"; pk[k] = (pk[k] ?? 0) + v.bytesInOutput; }
  console.log(entry, code.length, gzipSync(code).length, Object.entries(pk).sort((a,b)=>b[1]-a[1]).slice(0,8).map(([k,v])=>`${k}:${(v/1024).toFixed(0)}K`).join(' '));
}
