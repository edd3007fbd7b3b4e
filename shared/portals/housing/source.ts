/**
 * Housing.com as a pulled source (CONTRACT.md section 17): data only. Its reader is reader.ts; the
 * pull, the watermark, exactly-once, records, events and erasure are the service's (shared/pulled/).
 */
import type { PulledSourceDescriptor } from '../../pulled/types.ts';

export const housingSource = {
  name: 'housing',
  leadSource: 'housing',
  title: 'Housing.com',
  brief: 'Housing.com',
  baseUrl: { environment: 'PORTAL_HOUSING_URL', default: 'https://pahal.housing.com' },
  login: 'the Housing.com profile id',
  credential: 'the encryption key Housing.com issued',
  projectField: 'project_id',
  feeds: ['builder', 'broker'],
  page: 'docs/sources/housing.md',
  standIn: 'shared/portals/housing/stand-in.ts',
} as const satisfies PulledSourceDescriptor;
