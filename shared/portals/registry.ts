/**
 * Every portal the service pulls (CONTRACT.md section 17): each a folder with its descriptor and its
 * reader, and its one line here. A fourth portal (CommonFloor, Square Yards) is one more folder and line.
 */
import type { PortalReader, PulledSourceDescriptor } from '../pulled/types.ts';
import { ninetyNineAcresReader } from './99acres/reader.ts';
import { ninetyNineAcresSource } from './99acres/source.ts';
import { housingReader } from './housing/reader.ts';
import { housingSource } from './housing/source.ts';
import { magicbricksReader } from './magicbricks/reader.ts';
import { magicbricksSource } from './magicbricks/source.ts';

export interface PortalEntry {
  readonly source: PulledSourceDescriptor;
  readonly reader: PortalReader;
}

const declaredPortals = [
  { source: ninetyNineAcresSource, reader: ninetyNineAcresReader },
  { source: magicbricksSource, reader: magicbricksReader },
  { source: housingSource, reader: housingReader },
] as const;

export const portals: readonly PortalEntry[] = declaredPortals;

export type { PortalName } from './names.ts';

/** Each portal's base URL: its environment variable when set, else the portal's own. */
export const portalBaseUrls = (env: NodeJS.ProcessEnv): ReadonlyMap<string, string> =>
  new Map(portals.map(({ source }) => [source.name, env[source.baseUrl.environment] || source.baseUrl.default]));
