/**
 * The intake's read of a delivery's claims (types.ts DeliveryClaim: a WhatsApp conversation's) before
 * its write, a strategy given as IntakeDependencies' `claims` by the runtime of the functions whose
 * deliveries carry claims (shared/whatsapp/runtime.ts): the other sources' bundles carry none of it. The
 * write itself takes the claims (the stores' ClaimWrites, shared/dynamodb/delivery-claims.ts).
 */
import { ClaimHeldError } from '../domain/errors.ts';
import type { WriteClaimReader } from '../domain/ports/leads.ts';
import type { DeliveryClaimCheck } from './intake.ts';

/**
 * A delivery that stores nothing while its first claim is held (`decidedWhileClaimHeld`: a later
 * message of an open conversation) costs one read of it: held, ClaimHeldError (the delivery is
 * `already_decided`, nothing written); free, its write takes the claim.
 */
export const claimCheckOf =
  (reader: WriteClaimReader): DeliveryClaimCheck =>
  async (accountId, delivery) => {
    const first = delivery.claims?.[0];
    if (delivery.decidedWhileClaimHeld && first && (await reader.isHeld(accountId, first))) throw new ClaimHeldError();
  };
