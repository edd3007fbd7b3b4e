// The registry reachable from this workplace lacks some platform builds of native packages (darwin/win32
// builds of @swc/core, unrs-resolver, ...). `npm install` then leaves them out of package-lock.json and
// `npm ci` refuses the lock. This writes a stub entry, limited to the foreign os/cpu the name says, for
// each missing optional dependency, so `npm ci` accepts the lock and skips them as it would anyway.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const oses = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'wasm32', 'sunos', 'openbsd', 'netbsd', 'aix'];
const cpus = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const hoisted = `node_modules/${dep}`;
    const nested = `${path}/node_modules/${dep}`;
    if (lock.packages[hoisted] || lock.packages[nested]) continue;
    const words = dep.split('/').pop().split('-');
    const os = oses.find((o) => words.includes(o)) ?? (words.includes('wasm') ? 'wasm32' : undefined);
    const cpu = cpus.find((c) => words.includes(c)) ?? (words.includes('eabi') || words.includes('gnueabihf') ? 'arm' : undefined);
    if (!os || (os === 'linux' && cpu === 'x64')) {
      throw new Error(`cannot tell the platform of missing optional dependency ${dep}`);
    }
    lock.packages[hoisted] = { version, optional: true, os: [os], ...(cpu ? { cpu: [cpu] } : {}) };
    added += 1;
  }
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`stubbed ${added} optional dependencies missing from the registry`);
