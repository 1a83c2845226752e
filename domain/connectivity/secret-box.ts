import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

// Connection secrets at rest: AES-256-GCM under a configured key (SVC_CONNECTIVITY_KEYS), the
// connection's id as associated data, so a sealed secret copied onto another connection does not open.

export interface SecretKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  private readonly keys: Map<string, KeyObject>;
  private readonly currentId: string;

  /** The first key seals; every key opens (earlier ones stay for what they sealed). */
  constructor(keys: readonly SecretKey[]) {
    if (!keys.length) throw new Error('a secret box needs at least one key');
    this.keys = new Map(keys.map((k) => [k.id, createSecretKey(k.key)]));
    this.currentId = keys[0]!.id;
  }

  seal(plaintext: string, boundTo: string): { keyId: string; sealed: Buffer } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return { keyId: this.currentId, sealed };
  }

  open(sealed: Buffer, keyId: string, boundTo: string): string {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`connection secret sealed with key ${keyId}, which is not configured (SVC_CONNECTIVITY_KEYS)`);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** What connectivity needs from the composition root. */
export interface ConnectivitySettings {
  secrets: SecretBox;
  /** Sources may be on loopback, private and link-local addresses (SVC_CONNECTIVITY_PRIVATE_NETWORKS=allow). */
  privateNetworks: boolean;
}
