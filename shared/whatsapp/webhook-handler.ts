/**
 * GET and POST /api/whatsapp-webhook (CONTRACT.md section 15), on the one intake (shared/intake/handler.ts)
 * with WhatsApp's declaration (intake-source.ts), answered synchronously. GET answers Meta's subscription
 * check. POST, in the contract's order of checks: over 3 MiB 413; the Meta app's signature over the raw
 * bytes (401, nothing read); JSON (400); identifiers over 200 characters (400, nothing of the
 * notification stored); then each message in the order sent is stored, recorded or ignored, and only
 * then 200 `Notification received`. A database outage answers 503 with Retry-After: Meta retries the
 * whole notification for up to 7 days, and each message is stored once whatever was stored before.
 */
import { InvalidSignatureError } from '../domain/meta-errors.ts';
import type { ConnectionDirectory } from '../intake/connection-directory.ts';
import { intakeHandler, type IntakeRuntime, type SignatureCheck } from '../intake/handler.ts';
import type { WriteClaimReader } from '../domain/ports.ts';
import { isValidSignature, subscriptionChallenge, type MetaAppSecrets } from '../meta-app.ts';
import { whatsappIntakeSource } from './intake-source.ts';
import type { WhatsAppReaderSettings } from './notification.ts';

export interface WhatsAppWebhookRuntime extends IntakeRuntime {
  /** The connected business numbers (the connection store's kind `whatsapp_number`). */
  readonly connections: ConnectionDirectory;
  /** Its conversations' claims, read before a later message's write. */
  readonly claims: WriteClaimReader;
  readonly settings: WhatsAppReaderSettings;
}

/** The Meta app's signature and subscription check, with its secrets (one app serves Lead Ads and WhatsApp). */
export const metaAppSignature = (secrets: () => Promise<MetaAppSecrets>): SignatureCheck => ({
  verify: async (rawBody, signature) => isValidSignature(rawBody, signature, (await secrets()).appSecret),
  refusal: () => new InvalidSignatureError(),
  subscribe: async (query) => subscriptionChallenge(query, (await secrets()).verifyToken),
});

export const whatsappWebhookHandler = (runtime: WhatsAppWebhookRuntime) => intakeHandler(whatsappIntakeSource(runtime.settings, runtime.now), runtime);
