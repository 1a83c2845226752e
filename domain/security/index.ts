// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { ADDRESS_REFUSED, type AddressKind, classifyAddress, guardedLookup } from './outbound-address.ts';
export { hashPassword, PRODUCTION_SCRYPT, type ScryptParams, verifyPassword } from './password-hash.ts';
export { base62Width, equalHashes, fromBase62, newId, randomBase62, sha256, sha256Hex, toBase62 } from './random.ts';
export { createSecretBox, type SealedSecret, type SecretBox, type SecretKey } from './secret-box.ts';
