import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

// Every secret the service must use again later (camera credentials, data connections' secrets) is
// kept sealed: AES-256-GCM under the service's secret keys (SVC_SECRET_KEYS, else the data folder's
// generated key), the key's id stored beside the ciphertext so keys can rotate. A database dump
// alone never shows them.

export interface SecretKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export interface SealedSecret {
  keyId: string;
  /** IV, ciphertext, tag. */
  sealed: Buffer;
}

export interface SecretBox {
  seal(plaintext: string, context: string): SealedSecret;
  /** Throws when the key is not configured, or the ciphertext, its context or key id was altered. */
  open(secret: SealedSecret, context: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The first key seals, every key opens (earlier ones stay for what they sealed). `context` (the
 * record's id: a camera, a connection) is authenticated with the key id, so a sealed value copied
 * onto another row does not open there.
 */
export function createSecretBox(keys: readonly SecretKey[]): SecretBox {
  if (keys.length === 0) throw new Error('a secret box needs at least one key');
  const byId = new Map<string, KeyObject>(keys.map((k) => [k.id, createSecretKey(k.key)]));
  const current = keys[0]!;
  const aad = (keyId: string, context: string) => Buffer.from(`${keyId}\u0000${context}`, 'utf8');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', byId.get(current.id)!, iv);
      cipher.setAAD(aad(current.id, context));
      const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return { keyId: current.id, sealed };
    },
    open({ keyId, sealed }, context) {
      const key = byId.get(keyId);
      if (!key) throw new Error(`the secret was sealed with key ${keyId}, which is not among SVC_SECRET_KEYS`);
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(aad(keyId, context));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
