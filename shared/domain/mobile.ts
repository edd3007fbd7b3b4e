/**
 * Mobile normalisation (CONTRACT.md section 2) is a rule of the fields, below the domain: the schemas
 * apply it (shared/schemas/mobile.ts). The domain reads mobiles with the same rule.
 */
export { normaliseIndianMobile, toAsciiDigits } from '../schemas/mobile.ts';
