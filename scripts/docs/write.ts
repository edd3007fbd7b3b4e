/** `npm run docs`: writes the generated part of every source's page, docs/sources/<name>.md (source-pages.ts), and the README's channels (readme-channels.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { projectRoot } from '../openapi/build.ts';
import { SOURCE_PAGES_DIR, sourcePages, strayPages } from './source-pages.ts';
import { writeReadmeChannels } from './readme-channels.ts';

mkdirSync(SOURCE_PAGES_DIR, { recursive: true });
for (const [file, page] of await sourcePages()) {
  writeFileSync(file, page);
  process.stdout.write(`wrote ${path.relative(projectRoot, file)}\n`);
}
for (const stray of strayPages()) process.stderr.write(`docs/sources/${stray} belongs to no source of the registry: remove it or rename it\n`);
if (writeReadmeChannels(projectRoot)) process.stdout.write('wrote the channels of README.md\n');
