/**
 * MagicBricks as a pulled source (CONTRACT.md section 17): data only. Its reader is reader.ts; the
 * pull, the watermark, exactly-once, records, events and erasure are the service's (shared/pulled/).
 */
import type { PulledSourceDescriptor } from '../../pulled/types.ts';

export const magicbricksSource = {
  name: 'magicbricks',
  leadSource: 'magicbricks',
  title: 'MagicBricks',
  brief: 'MagicBricks',
  baseUrl: { environment: 'PORTAL_MAGICBRICKS_URL', default: 'https://api.magicbricks.com/bricks/leadsapi.html' },
  login: 'the MagicBricks login id (`loginid` in its enquiries)',
  credential: 'the key MagicBricks issued',
  projectField: 'pid',
  page: 'docs/sources/magicbricks.md',
  standIn: 'shared/portals/magicbricks/stand-in.ts',
} as const satisfies PulledSourceDescriptor;
