/**
 * 99acres as a pulled source (CONTRACT.md section 17): data only. Its reader is reader.ts; the pull,
 * the watermark, exactly-once, records, events and erasure are the service's (shared/pulled/).
 */
import type { PulledSourceDescriptor } from '../../pulled/types.ts';

export const ninetyNineAcresSource = {
  name: '99acres',
  leadSource: '99acres',
  title: '99acres',
  brief: 'enquiries on 99acres',
  baseUrl: { environment: 'PORTAL_99ACRES_URL', default: 'https://www.99acres.com/99api/v1/getmy99Response/OeAuXClO43hwseaXEQ/uid/' },
  login: 'the 99acres user name',
  credential: 'the password of that user name',
  projectField: 'ProjId',
  page: 'docs/sources/99acres.md',
  standIn: 'shared/portals/99acres/stand-in.ts',
} as const satisfies PulledSourceDescriptor;
