/**
 * The portals' descriptors alone (data, no reader): what the domain's words are derived from (their
 * leads' `source`, shared/domain/lead.ts), without importing a reader or the domain back.
 */
import { ninetyNineAcresSource } from './99acres/source.ts';
import { housingSource } from './housing/source.ts';
import { magicbricksSource } from './magicbricks/source.ts';

export const portalDescriptors = [ninetyNineAcresSource, magicbricksSource, housingSource] as const;

/** The portals' names (`99acres`, `magicbricks`, `housing`), their leads' `source` words. */
export type PortalName = (typeof portalDescriptors)[number]['name'];
