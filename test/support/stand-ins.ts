/**
 * Stand-ins for the command-line tools the README's examples use besides bash (curl, jq, openssl), for a
 * machine that lacks them: the project's rule is that a fresh machine has only Node and Java, and `npm ci
 * && npm test` passes there, README walk included. Each stand-in is a small script run by the project's
 * own Node (never a `node` found on PATH, which may be another version), in a bin folder put on the
 * PATH of the walk's shell. A reader following the README by hand needs the real tools.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const standInTools = ['curl', 'jq', 'openssl'] as const;
export type StandInTool = (typeof standInTools)[number];

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The folder of a PATH that holds an executable `tool`, the first one as a shell finds it. */
export const foundOnPath = (tool: string, pathVariable: string): string | undefined =>
  pathVariable.split(path.delimiter).find((dir) => dir !== '' && isExecutable(path.join(dir, tool)));

const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A new folder holding a stand-in for each tool named, as an executable of that name. */
export const standInBin = (tools: readonly StandInTool[]): string => {
  const bin = mkdtempSync(path.join(tmpdir(), 'lead-intake-stand-ins-'));
  for (const tool of tools) {
    const script = fileURLToPath(new URL(`./stand-ins/${tool}.ts`, import.meta.url));
    writeFileSync(path.join(bin, tool), `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(script)} "$@"\n`, { mode: 0o755 });
  }
  return bin;
};

/**
 * A PATH on which a shell finds each of curl, jq and openssl: the machine's own where it has it, a
 * stand-in where it does not. Returns the PATH and the tools stood in for.
 */
export const withStandIns = (pathVariable: string): { path: string; standIns: StandInTool[]; bin?: string } => {
  const standIns = standInTools.filter((tool) => foundOnPath(tool, pathVariable) === undefined);
  if (standIns.length === 0) return { path: pathVariable, standIns };
  const bin = standInBin(standIns);
  return { path: [bin, pathVariable].join(path.delimiter), standIns, bin };
};

/**
 * The PATH of a machine without curl, jq and openssl: each folder of `pathVariable` that holds one of them
 * is replaced by a new folder of links to everything else in it (all of them under the returned `dir`).
 */
export const withoutTools = (pathVariable: string, tools: readonly string[] = standInTools): { path: string; dir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'lead-intake-no-tools-'));
  const stripped = pathVariable
    .split(path.delimiter)
    .map((dir, index) => {
      if (!tools.some((tool) => dir !== '' && isExecutable(path.join(dir, tool)))) return dir;
      const copy = path.join(root, String(index));
      mkdirSync(copy);
      for (const entry of readdirSync(dir)) if (!tools.includes(entry)) symlinkSync(path.join(dir, entry), path.join(copy, entry));
      return copy;
    })
    .join(path.delimiter);
  return { path: stripped, dir: root };
};
