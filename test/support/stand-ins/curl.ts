/**
 * A stand-in for `curl`, for a machine without it: exactly the flags the README's examples use, and a
 * loud refusal of any other, so that a new example with a flag this does not know fails the README
 * walk rather than passing on a request curl would not have sent.
 *
 * As curl: the response body goes to standard output as it came (no newline added), whatever the status;
 * redirects are not followed; `-d` makes the request a POST with the form content type unless `-X` or
 * `-H` say otherwise, and several are joined with `&`; a failed connection exits 7.
 */
const usage = 'curl stand-in: knows only -s/--silent, -X/--request METHOD, -H/--header "Name: value", -d/--data TEXT and one URL';

const refuse = (message: string): never => {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
};

let silent = false;
let method: string | undefined;
let url: string | undefined;
const headers = new Headers();
const data: string[] = [];

const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const value = () => args[++i] ?? refuse(`curl stand-in: ${arg} needs a value`);
  switch (arg) {
    case '-s':
    case '--silent':
      silent = true; // the stand-in prints no progress meter anyway
      break;
    case '-X':
    case '--request':
      method = value();
      break;
    case '-H':
    case '--header': {
      const header = value();
      const colon = header.indexOf(':');
      if (colon <= 0) refuse(`curl stand-in: a header it does not know how to send: ${header}`);
      headers.append(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
      break;
    }
    case '-d':
    case '--data': {
      const text = value();
      // curl reads `-d @file` from the file: no README example does, so it is refused rather than sent as text.
      if (text.startsWith('@')) refuse('curl stand-in: -d @file is not supported');
      data.push(text);
      break;
    }
    default:
      if (arg.startsWith('-')) refuse(`curl stand-in: unknown flag ${arg}`);
      if (url !== undefined) refuse(`curl stand-in: a second URL ${arg}`);
      url = arg;
  }
}
if (url === undefined) refuse('curl stand-in: no URL');

const body = data.length > 0 ? data.join('&') : undefined;
if (body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
if (!headers.has('accept')) headers.set('accept', '*/*');

try {
  const response = await fetch(/^[a-z][a-z0-9+.-]*:\/\//i.test(url!) ? url! : `http://${url}`, {
    method: method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
    redirect: 'manual',
  });
  process.stdout.write(Buffer.from(await response.arrayBuffer()));
} catch (error) {
  if (!silent) process.stderr.write(`curl: (7) ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}\n`);
  process.exitCode = 7;
}
