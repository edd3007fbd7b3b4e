// Bundled in place of node:crypto: the names the function bundles import (lib/bundling/node-builtins.ts says why).
const crypto = process.getBuiltinModule('node:crypto');
export default crypto;
export const { createCipheriv, createDecipheriv, createHash, createHmac, createPrivateKey, createPublicKey, createSecretKey, getRandomValues, randomBytes, randomUUID, sign, timingSafeEqual } = crypto;
