/**
 * The per-source pages, docs/sources/<name>.md: one for every source of the registry. What the registry
 * knows (route, methods, authentication, answer, throttle settings and their defaults, body fields from
 * the OpenAPI document, sample events, admin verbs and routes, seed member) is written between the
 * page's generated markers, so it cannot drift from the code; the rest of the page is written by hand
 * (what a sender or an account owner must know of that source). A source added to the registry gets a
 * page with its generated part and a heading for the hand-written one at the next `npm run docs`.
 */
import { portalDescriptors } from '../../shared/portals/names.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { defaultSettings, routeThrottleBounds } from '../../lib/settings.ts';
import type { LeadSourceDescriptor } from '../../shared/sources/descriptor.ts';
import { leadSources } from '../../shared/sources/registry.ts';
import type { CommandModule } from '../admin/command.ts';
import { buildOpenApiDocument, projectRoot } from '../openapi/build.ts';

export const SOURCE_PAGES_DIR = path.join(projectRoot, 'docs', 'sources');

export const GENERATED_START = '<!-- generated from the registry by `npm run docs`: edit shared/sources or the source\'s descriptor, not this part -->';
export const GENERATED_END = '<!-- end of the generated part -->';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The page of a source: its registry name, so a new source's page is named as its log lines and records name it. */
export const sourcePageFile = (source: LeadSourceDescriptor): string => path.join(SOURCE_PAGES_DIR, `${source.name}.md`);

const authentication: Record<LeadSourceDescriptor['authentication'], (source: LeadSourceDescriptor) => string> = {
  'api-key': (source) =>
    `An account's API key in \`x-api-key\` (401 \`API Key missing\` / \`Invalid API credentials\`); a key limited to other endpoints answers 403 \`API key not allowed on this endpoint\` (\`create-key --endpoints ${source.name}\`).` +
    (source.browserFacing ? ' Browser keys (`create-key --origins`) post here only, from their own origins; it answers CORS preflight (`OPTIONS`) itself.' : ''),
  'scoped-api-key': (source) =>
    `A key limited to \`${source.keyScope!.name}\` alone (\`create-key --endpoints ${source.keyScope!.name}\`), in \`x-api-key\`` +
    (source.keyScope!.queryParameter ? ` or, for a sender that cannot set headers, \`?${source.keyScope!.queryParameter}=\` (the header wins when both are sent)` : '') +
    '; any other key of the account answers 403 `API key not allowed on this endpoint`, and this key opens no other endpoint.',
  'connection-key': (source) => `The key of the ${source.connection ? `\`${source.connection.kind}\` ` : ''}connection the delivery names, sent in the delivery itself; only its SHA-256 hash is stored, compared in constant time.`,
  'platform-signature': () => "The platform's signature of the raw body (an HMAC with the app's secret), checked before anything is read (401 `Invalid signature`).",
};

const firstSentence = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  return (end < 0 ? flat : flat.slice(0, end + 1)).replaceAll('|', '\\|');
};

const resolve = (document: JsonObject, schema: Json | undefined): JsonObject | undefined => {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    let target: Json = document;
    for (const part of ref.replace(/^#\//, '').split('/')) target = (target as JsonObject)[part]!;
    return resolve(document, target);
  }
  return schema;
};

/** The top-level fields of the JSON body its OpenAPI operations take, with whether each is required and the first sentence of what it is. */
const bodyFields = (document: JsonObject, source: LeadSourceDescriptor): string[] => {
  const operations = ((document.paths as JsonObject)[source.route.path] ?? {}) as JsonObject;
  const lines: string[] = [];
  for (const [method, operation] of Object.entries(operations)) {
    const content = ((operation as JsonObject).requestBody as JsonObject | undefined)?.content as JsonObject | undefined;
    const schema = resolve(document, (content?.['application/json'] as JsonObject | undefined)?.schema);
    const properties = schema?.properties as JsonObject | undefined;
    if (!properties) continue;
    const required = new Set((schema!.required as string[] | undefined) ?? []);
    lines.push('', `Fields of its \`${method.toUpperCase()}\` body (JSON), as the OpenAPI document gives them:`, '', '| Field | Required | What it is |', '|---|---|---|');
    for (const [name, property] of Object.entries(properties)) {
      const { description, type, const: constant } = property as JsonObject;
      const what = typeof description === 'string' ? firstSentence(description) : constant !== undefined ? `always \`${JSON.stringify(constant)}\`` : typeof type === 'string' ? `a JSON ${type}` : '';
      lines.push(`| \`${name}\` | ${required.has(name) ? 'yes' : 'no'} | ${what} |`);
    }
  }
  return lines;
};

const throttleRows = (source: LeadSourceDescriptor): string[] => {
  const header = ['', '| Stack setting | Default | Bounds |', '|---|---|---|'];
  if (!source.throttle) {
    return [
      '',
      "Its route's throttle is the stage's default, shared with the other server-to-server routes:",
      ...header,
      `| \`throttlingRateLimit\` (requests per second) | ${defaultSettings.throttlingRateLimit} | ${routeThrottleBounds.rateLimit.min} to ${routeThrottleBounds.rateLimit.max} |`,
      `| \`throttlingBurstLimit\` (burst) | ${defaultSettings.throttlingBurstLimit} | ${routeThrottleBounds.burstLimit.min} to ${routeThrottleBounds.burstLimit.max} |`,
    ];
  }
  return [
    '',
    'Its route has a throttle of its own (API Gateway answers 429 past it), two settings of the stack (docs/deployment.md):',
    ...header,
    `| \`${source.throttle.rateLimit.name}\` (requests per second) | ${source.throttle.rateLimit.default} | ${routeThrottleBounds.rateLimit.min} to ${routeThrottleBounds.rateLimit.max} |`,
    `| \`${source.throttle.burstLimit.name}\` (burst) | ${source.throttle.burstLimit.default} | ${routeThrottleBounds.burstLimit.min} to ${routeThrottleBounds.burstLimit.max} |`,
  ];
};

const adminVerbs = async (source: LeadSourceDescriptor): Promise<string[]> => {
  const lines: string[] = [];
  if (source.adminCli) {
    const verbs = ((await import(path.join(projectRoot, source.adminCli.module))) as { default: CommandModule }).default;
    lines.push('', `Its admin CLI verbs (\`npm run -s admin -- <verb>\`, [${source.adminCli.module}](../../${source.adminCli.module})):`, '');
    for (const command of Object.values(verbs)) lines.push(`- \`${command.usage}\`: ${firstSentence(command.summary)}`);
  }
  if (source.admin) {
    lines.push('', 'Its admin API routes (on `{base_url}`, signed with SigV4 as every admin route; OpenAPI tag `Admin`):', '');
    for (const route of source.admin.routes) lines.push(`- \`${route.method} ${route.path}\` (\`${route.operation}\`)`);
  }
  if (source.seed) lines.push('', `A seed file's account may carry its \`${source.seed.member}\` ([docs/reference.md, the seed file](../reference.md#the-seed-file-whole)).`);
  return lines;
};

/** The generated part of a source's page, markers included. */
export const generatedPart = async (source: LeadSourceDescriptor, document: JsonObject = buildOpenApiDocument() as JsonObject): Promise<string> => {
  const lines = [
    GENERATED_START,
    '',
    '| | |',
    '|---|---|',
    `| Name (log lines, metrics, rejection records' \`endpoint\`) | \`${source.name}\` |`,
    `| Route | ${source.route.methods.map((method) => `\`${method}\``).join(', ')} \`{base_url}${source.route.path}\` |`,
    `| Body | ${source.bodyFormat === 'json' ? 'a JSON object' : "a JSON object signed by the platform"} |`,
    `| Answer when accepted | ${source.acceptance.status} \`${source.acceptance.message}\`${source.acceptance.withLead ? ', with the lead in `data`' : ''} |`,
    `| Its leads' \`source\` | \`${source.leadSource}\` |`,
    ...(source.platformId ? [`| Platform id (one lead or one rejection record per id) | \`${[...(source.platformId.qualifiedBy ?? []), source.platformId.field].join('` + `')}\` |`] : []),
    ...(source.connection ? [`| Connection its deliveries name | \`${source.connection.kind}\`${source.channel ? ` (the lead's \`${source.channel.connectionField}\`)` : ''} |`] : []),
    ...(source.worker ? [`| Asynchronous | its webhook queues each delivery; a worker ([${source.worker.entry}](../../${source.worker.entry})) makes the leads |`] : []),
    `| Handler | [${source.entry}](../../${source.entry}) |`,
    '',
    `**Authentication.** ${authentication[source.authentication](source)}`,
    ...bodyFields(document, source),
    ...throttleRows(source),
    '',
    `Sample events (\`npm run -s invoke -- ${source.invokeName} <event.json>\`): ${source.sampleEvents.map((file) => `[${path.basename(file)}](../../${file})`).join(', ')}.`,
    ...(await adminVerbs(source)),
    '',
    GENERATED_END,
  ];
  return lines.join('\n');
};

/** A page not written yet: its title, the generated part, and the heading under which a person writes the rest (the test fails until they do). */
const newPage = (source: LeadSourceDescriptor, generated: string): string =>
  `# ${source.title}\n\n## At a glance\n\n${generated}\n\n## What a sender must know\n\nTo be written: see docs/adding-a-lead-source.md.\n`;

/** The page as it should be: the hand-written parts kept, the generated part fresh. */
export const renderSourcePage = async (source: LeadSourceDescriptor, document?: JsonObject): Promise<string> => {
  const generated = await generatedPart(source, document);
  const file = sourcePageFile(source);
  if (!existsSync(file)) return newPage(source, generated);
  const page = readFileSync(file, 'utf8');
  const start = page.indexOf(GENERATED_START);
  const end = page.indexOf(GENERATED_END);
  if (start >= 0 && end > start) return page.slice(0, start) + generated + page.slice(end + GENERATED_END.length);
  if (start >= 0 || end >= 0) throw new Error(`${path.relative(projectRoot, file)} has one of the generated part's markers without the other`);
  // A page written by hand before its first build (a new source's): the generated part goes under its title.
  const titleEnd = page.indexOf('\n') < 0 ? page.length : page.indexOf('\n');
  return `${page.slice(0, titleEnd)}\n\n## At a glance\n\n${generated}\n${page.slice(titleEnd)}`;
};

/** Every source's page as it should be, by file. */
export const sourcePages = async (): Promise<Map<string, string>> => {
  const document = buildOpenApiDocument() as JsonObject;
  const pages = new Map<string, string>();
  for (const source of leadSources) pages.set(sourcePageFile(source), await renderSourcePage(source, document));
  return pages;
};

/** Pages in docs/sources/ that no registry source has (a source renamed or removed). */
export const strayPages = (): string[] => {
  if (!existsSync(SOURCE_PAGES_DIR)) return [];
  // The pulled portals' pages (CONTRACT.md section 17) are written by hand: no generated part.
  const expected = new Set([...leadSources.map((source) => `${source.name}.md`), ...portalDescriptors.map((portal) => path.basename(portal.page))]);
  return readdirSync(SOURCE_PAGES_DIR).filter((name) => name.endsWith('.md') && !expected.has(name) && name !== 'README.md');
};
