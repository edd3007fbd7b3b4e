import { jsonResponse } from '../../shared/http/envelope.ts';

/**
 * GET and POST /api/whatsapp-webhook (CONTRACT.md section 15). Until its webhook is built on the intake
 * pipeline, every delivery answers 503 with Retry-After: Meta retries for up to 7 days, so nothing sent
 * meanwhile is lost.
 */
export const handler = async () => jsonResponse(503, { status: false, message: 'Service temporarily unavailable, please retry' }, { 'retry-after': '60' });
