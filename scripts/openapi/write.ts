/** `npm run openapi`: writes the OpenAPI document (scripts/openapi/build.ts) to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildOpenApiDocument, OPENAPI_FILE, projectRoot, serialiseOpenApiDocument } from './build.ts';

writeFileSync(OPENAPI_FILE, serialiseOpenApiDocument(buildOpenApiDocument()));
process.stdout.write(`wrote ${path.relative(projectRoot, OPENAPI_FILE)}\n`);
