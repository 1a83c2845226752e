import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import {
  AesGcmPayloadCodec,
  generatedKeyFile,
  generatedPayloadKey,
  type Payload,
  parsePayloadKeys,
} from '../../../infra/temporal-codec/payload-codec.ts';

// svc's payload codec on its own: sealing, opening after a key rotation, the errors of a missing
// or wrong key, the configuration's key list, and the generated key file.

const text = (p: Payload | undefined) => Buffer.from(p?.data ?? new Uint8Array()).toString();
const meta = (p: Payload | undefined, key: string) => Buffer.from(p?.metadata?.[key] ?? new Uint8Array()).toString();
const plain: Payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"email":"ann@example.com"}') };
const key = (id: string) => ({ id, key: randomBytes(32) });

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('AesGcmPayloadCodec', () => {
  it('seals with the current key (id in the metadata, no plaintext) and opens what it sealed', async () => {
    const codec = new AesGcmPayloadCodec([key('k2'), key('k1')]);
    const [sealed] = await codec.encode([plain]);
    expect([meta(sealed, 'encoding'), meta(sealed, 'encryption-key-id')]).toEqual(['binary/encrypted', 'k2']);
    expect(Buffer.from(sealed!.data!).includes('ann@example.com')).toBe(false);
    const [opened] = await codec.decode([sealed!]);
    expect([meta(opened, 'encoding'), text(opened)]).toEqual(['json/plain', text(plain)]);
    // Payloads that were never sealed (written before encryption) pass through.
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('after a rotation, opens what the earlier key sealed and seals with the new one', async () => {
    const old = key('2026-05');
    const [sealedBefore] = await new AesGcmPayloadCodec([old]).encode([plain]);
    const rotated = new AesGcmPayloadCodec([key('2026-11'), old]);
    expect(text((await rotated.decode([sealedBefore!]))[0])).toBe(text(plain));
    expect(meta((await rotated.encode([plain]))[0], 'encryption-key-id')).toBe('2026-11');
  });

  it('a missing key or other bytes under the same id: a clear error naming the key', async () => {
    const [sealed] = await new AesGcmPayloadCodec([key('k1')]).encode([plain]);
    await expect(new AesGcmPayloadCodec([key('k9')]).decode([sealed!])).rejects.toThrow(
      /encrypted with key "k1", which this process does not have \(it has "k9"\)/,
    );
    await expect(new AesGcmPayloadCodec([key('k1')]).decode([sealed!])).rejects.toThrow(
      /sealed with key "k1" does not open with this process's key of that id/,
    );
    // Relabelled with another key's id: the id is authenticated too.
    const relabelled = { ...sealed, metadata: { ...sealed!.metadata, 'encryption-key-id': Buffer.from('k2') } };
    await expect(new AesGcmPayloadCodec([key('k2')]).decode([relabelled])).rejects.toThrow(/does not open/);
  });
});

describe('SVC_TEMPORAL_PAYLOAD_KEYS', () => {
  const b64 = () => randomBytes(32).toString('base64');

  it('reads id:base64 entries, the first being the current key', () => {
    const [a, b] = [b64(), b64()];
    const keys = parsePayloadKeys(`new:${a}, old:${b}`);
    expect(Array.isArray(keys) && keys.map((k) => [k.id, k.key.toString('base64')])).toEqual([
      ['new', a],
      ['old', b],
    ]);
  });

  it('refuses short keys, bad or repeated ids, naming the key but never printing it', () => {
    const short = randomBytes(16).toString('base64');
    expect(parsePayloadKeys(`k:${short}`)).toMatch(/key "k" must be 32 bytes/);
    expect(parsePayloadKeys(`bad id:${b64()}`)).toMatch(/entry 1 must be <id>:<base64 key>/);
    expect(parsePayloadKeys(`k:${b64()},k:${b64()}`)).toMatch(/"k" is given twice/);
    expect(() => loadConfig({ SVC_TEMPORAL_PAYLOAD_KEYS: `k:${short}` })).toThrow(/SVC_TEMPORAL_PAYLOAD_KEYS.*must be 32 bytes/s);
    expect(() => loadConfig({ SVC_TEMPORAL_PAYLOAD_KEYS: `k:${short}` })).not.toThrow(short);
  });
});

describe('the generated key file', () => {
  it('is made once per data folder, mode 0600, and read back; a reader that must not create finds none', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-codec-'));
    dirs.push(dataDir);
    expect(await generatedPayloadKey(dataDir, { create: false })).toBeUndefined();
    const made = await generatedPayloadKey(dataDir, { create: true });
    expect(made?.id).toMatch(/^local-[0-9a-f]{8}$/);
    expect((await stat(generatedKeyFile(dataDir))).mode & 0o777).toBe(0o600);
    expect(await readFile(generatedKeyFile(dataDir), 'utf8')).toBe(`${made!.id}:${made!.key.toString('base64')}\n`);
    expect(await generatedPayloadKey(dataDir, { create: true })).toEqual(made);
    expect(await generatedPayloadKey(dataDir, { create: false })).toEqual(made);
  });

  it('makes a missing data folder with its usual mode and only temporal/ its owner’s alone (a worker made it 0700, and the embedded PostgreSQL’s user could not enter it)', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'svc-codec-'));
    dirs.push(parent);
    const dataDir = path.join(parent, 'data');
    await generatedPayloadKey(dataDir, { create: true });
    expect((await stat(dataDir)).mode & 0o777).toBe(0o777 & ~process.umask());
    expect((await stat(path.dirname(generatedKeyFile(dataDir)))).mode & 0o777).toBe(0o700);
  });
});
