/**
 * A stand-in for `jq`, for a machine without it: jq itself, compiled to WebAssembly (the `jq-web`
 * package, which ships its .wasm), so filters keep jq's semantics. Only the options the README's
 * examples use are taken (-r, -c, --arg NAME VALUE), then the filter and any files; any other option is
 * refused loudly, as the curl stand-in does.
 *
 * Unlike jq: the output comes once the filter has run over the whole input, and a filter that fails
 * after some output prints only its error (jq-web returns no output with a non-zero exit).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface JqError extends Error {
  readonly exitCode?: number;
  readonly stderr?: string;
}
interface Jq {
  /** Standard output less its last newline; undefined when jq printed nothing. */
  raw(input: string, filter: string, flags: string[]): string | undefined;
}

const refuse = (message: string): never => {
  process.stderr.write(`jq stand-in: ${message}; it knows only -r, -c, --arg NAME VALUE, a filter and files\n`);
  process.exit(2);
};

const flags: string[] = [];
const positional: string[] = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '-r' || arg === '-c') flags.push(arg);
  else if (arg === '--arg') {
    if (i + 2 >= args.length) refuse('--arg needs a name and a value');
    flags.push(arg, args[++i]!, args[++i]!);
  } else if (arg.startsWith('-') && arg !== '-') refuse(`unknown option ${arg}`);
  else positional.push(arg);
}
const [filter, ...files] = positional;
if (filter === undefined) refuse('no filter');

const readStdin = async () => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const input = files.length > 0 ? files.map((file) => (file === '-' ? '' : readFileSync(file, 'utf8'))).join('\n') : await readStdin();

// jq-web has no types, and its module is a promise of jq.
const jq = (await createRequire(import.meta.url)('jq-web')) as Jq;
try {
  const output = jq.raw(input, filter!, flags);
  if (output !== undefined) process.stdout.write(`${output}\n`);
} catch (error) {
  const { exitCode, stderr, message } = error as JqError;
  process.stderr.write(`${stderr ?? message}\n`);
  process.exitCode = exitCode ?? 5;
}
