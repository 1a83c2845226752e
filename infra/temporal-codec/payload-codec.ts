import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

// svc's payload codec: every payload svc's Temporal clients and workers send (workflow inputs,
// results, signals, queries, schedule actions, activity arguments) is stored in Temporal as
// AES-256-GCM ciphertext, so Temporal's database and its Web UI show `binary/encrypted` instead of
// company data. Temporal's documented answer for sensitive payloads (a PayloadCodec in the data
// converter); the Web UI decodes through svc's codec endpoint, for platform staff only.

/** A Temporal payload (structurally @temporalio/common's Payload, whose proto package svc does not import). */
export interface Payload {
  metadata?: Record<string, Uint8Array> | null;
  data?: Uint8Array | null;
}

export interface PayloadKey {
  /** Written into each payload's metadata, so a payload names the key that opens it (keys rotate). */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** A payload this process cannot open: its key is not configured, or the key or the data is not the one it was sealed with. */
export class PayloadKeyError extends Error {
  override name = 'PayloadKeyError';
}

/**
 * Encrypts with the first key, decrypts with any of them (the rest are earlier keys kept for what
 * they sealed). Payloads that are not `binary/encrypted` pass through on decode (runs written
 * before encryption was turned on stay readable).
 */
export class AesGcmPayloadCodec {
  // KeyObjects, made once: createCipheriv given a Buffer checks it against KeyObject the slow way,
  // about 0.1 ms per payload (3% of the process's CPU under app workflow runs).
  private readonly keys: Map<string, KeyObject>;
  private readonly current: { id: string; key: KeyObject };

  constructor(keys: readonly PayloadKey[]) {
    if (!keys.length) throw new Error('a payload codec needs at least one key');
    for (const k of keys) {
      if (k.key.length !== KEY_BYTES) throw new Error(`payload key ${k.id} must be ${KEY_BYTES} bytes, not ${k.key.length}`);
    }
    this.keys = new Map(keys.map((k) => [k.id, createSecretKey(k.key)]));
    this.current = { id: keys[0]!.id, key: createSecretKey(keys[0]!.key) };
  }

  get keyId(): string {
    return this.current.id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.seal(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.open(p));
  }

  private seal(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    // The key id is authenticated too: a payload relabelled with another key id does not open.
    cipher.setAAD(utf8.encode(this.current.id));
    const sealed = Buffer.concat([iv, cipher.update(serialize(payload)), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID]: utf8.encode(this.current.id) }, data: sealed };
  }

  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || text.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const rawId = payload.metadata?.[KEY_ID];
    const keyId = rawId ? text.decode(rawId) : undefined;
    const key = keyId === undefined ? undefined : this.keys.get(keyId);
    if (!key) {
      throw new PayloadKeyError(
        `payload encrypted with key "${keyId ?? '(none named)'}", which this process does not have (it has ${[...this.keys.keys()]
          .map((k) => `"${k}"`)
          .join(', ')}): add that key to SVC_TEMPORAL_PAYLOAD_KEYS after the current one`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadKeyError(`payload sealed with key "${keyId}" is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(utf8.encode(keyId!));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return deserialize(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
    } catch {
      throw new PayloadKeyError(
        `payload sealed with key "${keyId}" does not open with this process's key of that id: the key's bytes differ from the ones it was sealed with (or the data was altered)`,
      );
    }
  }
}

// The sealed form of a payload: JSON of its metadata and data in base64 (svc's codec is the only
// reader, so Temporal's proto encoding of a Payload is not needed).
function serialize(payload: Payload): Buffer {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return Buffer.from(JSON.stringify({ metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') }));
}

function deserialize(bytes: Buffer): Payload {
  const { metadata, data } = JSON.parse(bytes.toString('utf8')) as { metadata: Record<string, string>; data: string };
  return {
    metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
    data: new Uint8Array(Buffer.from(data, 'base64')),
  };
}

/** `id:base64` entries separated by commas (SVC_TEMPORAL_PAYLOAD_KEYS), or the problem with them. */
export function parsePayloadKeys(value: string): PayloadKey[] | string {
  const keys: PayloadKey[] = [];
  for (const [i, entry] of value.split(',').entries()) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon).trim();
    const key = Buffer.from(entry.slice(colon + 1).trim(), 'base64');
    if (colon < 1 || !KEY_ID_PATTERN.test(id)) return `entry ${i + 1} must be <id>:<base64 key>, the id 1-64 of A-Z a-z 0-9 . _ -`;
    if (key.length !== KEY_BYTES) return `key "${id}" must be ${KEY_BYTES} bytes in base64 (openssl rand -base64 32), not ${key.length}`;
    if (keys.some((k) => k.id === id)) return `key id "${id}" is given twice`;
    keys.push({ id, key });
  }
  return keys;
}

/** Where a process keeps the key it generated when none is configured (inside the refused `temporal/` folder). */
export const generatedKeyFile = (dataDir: string) => path.join(dataDir, 'temporal', 'payload.key');

/**
 * The generated key of this data folder: read, or made on first use, readable by its owner only.
 * `create: false` (a process that shares no data folder with the worker): undefined when there is none.
 */
export async function generatedPayloadKey(dataDir: string, opts: { create: boolean; file?: string }): Promise<PayloadKey | undefined> {
  // Another key of the same form elsewhere in the data folder (the secret sealer's key).
  const file = opts.file ?? generatedKeyFile(dataDir);
  const existing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (existing === undefined && !opts.create) return undefined;
  if (existing !== undefined) {
    const parsed = parsePayloadKeys(existing.trim());
    if (typeof parsed === 'string' || parsed.length !== 1)
      throw new Error(`${file} is not a payload key file: ${typeof parsed === 'string' ? parsed : 'it must hold one key'}`);
    return parsed[0];
  }
  const key = randomBytes(KEY_BYTES);
  const id = `local-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
  // The data folder keeps its usual mode (the embedded PostgreSQL's user must traverse it); only
  // the key's folder is its owner's alone. A recursive mkdir would give the mode to every folder it makes.
  await mkdir(dataDir, { recursive: true });
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // wx: two processes starting on one folder never overwrite each other's key; the loser reads the winner's.
  try {
    await writeFile(file, `${id}:${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return generatedPayloadKey(dataDir, opts);
    throw err;
  }
  // The umask may have narrowed the mode further but never widens it; chmod states it exactly.
  await chmod(file, 0o600);
  return { id, key };
}
