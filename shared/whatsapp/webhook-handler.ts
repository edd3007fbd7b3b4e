/**
 * GET and POST /api/whatsapp-webhook (CONTRACT.md section 15), on the one intake (shared/intake/handler.ts)
 * with WhatsApp's declaration (intake-source.ts), answered synchronously. GET answers Meta's subscription
 * check. POST, in the contract's order of checks: over 3 MiB 413; the Meta app's signature over the raw
 * bytes (401, nothing read); JSON (400); identifiers over 200 characters (400, nothing of the
 * notification stored); then each message in the order sent is stored, recorded or ignored, and only
 * then 200 `Notification received`. A database outage answers 503 with Retry-After: Meta retries the
 * whole notification for up to 7 days, and each message is stored once whatever was stored before.
 */
import { InvalidSignatureError } from '../meta-app.ts';
import { andThen } from '../http/lead-chain.ts';
import type { ConnectionDirectory } from '../intake/connection-directory.ts';
import { intakeHandler, type IntakeRuntime } from '../intake/handler.ts';
import type { DeliveryClaimCheck } from '../intake/intake.ts';
import { noKeyBeforeBody, platformSubscription, signedJsonBody, type SignatureCheck } from '../intake/steps.ts';
import { isValidSignature, subscriptionChallenge, type MetaAppSecrets } from '../meta-app.ts';
import { whatsappIntakeSource } from './intake-source.ts';
import type { WhatsAppReaderSettings } from './notification.ts';

export interface WhatsAppWebhookRuntime extends IntakeRuntime {
  /** The connected business numbers (the connection store's kind `whatsapp_number`). */
  readonly connections: ConnectionDirectory;
  /** Its conversations' claims, read before a later message's write (shared/intake/delivery-claims.ts). */
  readonly claims: DeliveryClaimCheck;
  /** The Meta app's secrets (one app serves Lead Ads and WhatsApp): its app secret and verify token. */
  readonly secrets: () => Promise<MetaAppSecrets>;
  readonly settings: WhatsAppReaderSettings;
}

/** The Meta app's signature of a notification (`X-Hub-Signature-256`), with its secrets. */
export const metaAppSignature = (secrets: () => Promise<MetaAppSecrets>): SignatureCheck => ({
  header: 'x-hub-signature-256',
  verify: async (rawBody, signature) => isValidSignature(rawBody, signature, (await secrets()).appSecret),
  refusal: () => new InvalidSignatureError(),
});

export const whatsappWebhookHandler = (runtime: WhatsAppWebhookRuntime) => {
  const source = whatsappIntakeSource(runtime.settings, runtime.now);
  return intakeHandler(source, runtime, {
    // Meta's subscription check (GET) first; a notification (POST) has no key before its signed body.
    authentication: andThen(platformSubscription(source, async (query) => subscriptionChallenge(query, (await runtime.secrets()).verifyToken)), noKeyBeforeBody(source)),
    body: signedJsonBody(source, metaAppSignature(runtime.secrets)),
  });
};
