/**
 * A stand-in for `openssl`, for a machine without it: only `openssl dgst -sha256 -hmac KEY`, the README's
 * way to sign a Meta delivery, reading standard input and printing what OpenSSL 3 prints for it
 * (`SHA2-256(stdin)= <hex>`). Anything else is refused, loudly.
 */
import { createHmac } from 'node:crypto';

const refuse = (message: string): never => {
  process.stderr.write(`openssl stand-in: ${message}; it knows only: openssl dgst -sha256 -hmac KEY (reading standard input)\n`);
  process.exit(2);
};

const [command, ...args] = process.argv.slice(2);
if (command !== 'dgst') refuse(`unknown command ${command ?? '(none)'}`);
let sha256 = false;
let key: string | undefined;
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '-sha256') sha256 = true;
  else if (arg === '-hmac') key = args[++i] ?? refuse('-hmac needs a key');
  else refuse(arg.startsWith('-') ? `unknown option ${arg}` : `a file argument ${arg}`);
}
if (!sha256) refuse('no -sha256');
if (key === undefined) refuse('no -hmac KEY');

const hmac = createHmac('sha256', key!);
for await (const chunk of process.stdin) hmac.update(chunk as Buffer);
process.stdout.write(`SHA2-256(stdin)= ${hmac.digest('hex')}\n`);
