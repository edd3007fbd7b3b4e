/**
 * The project's own sample deliveries of each provider (test/providers/shapes/<provider>/*.json), written
 * from the providers' published shapes; each file names the document it follows in `documented_by`
 * (docs/sources/*.md lists them). Numbers are Indian ones, so that a shape that should make a lead can.
 */
import { readdirSync, readFileSync } from 'node:fs';

const folder = new URL('./shapes/', import.meta.url);

/** One provider's sample, by its file name (without `.json`). */
export const shapeOf = <T = Record<string, any>>(provider: string, name: string): T & { documented_by: string } =>
  JSON.parse(readFileSync(new URL(`${provider}/${name}.json`, folder), 'utf8'));

/** The names of a provider's samples, so that a sample without a test fails the suite. */
export const shapesOf = (provider: string): string[] =>
  readdirSync(new URL(`${provider}/`, folder))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
