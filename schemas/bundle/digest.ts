// Version digest (spec "App version": a hash over every file path plus content hash, plus a
// hash of the manifest without `namespace` and `$schema`). Exact construction, version 1:
//
//   manifestHash = sha256hex(canonicalJson(manifest as submitted, minus top-level
//                  `namespace` and `$schema`))
//   digest = sha256hex(UTF-8 of
//       "svc-bundle-digest-v1\n"
//     + for each file, sorted by the UTF-8 bytes of its path:
//         "file " + <byte length of path, decimal> + " " + path + " " + sha256hex(bytes) + "\n"
//     + "manifest " + manifestHash + "\n")
//
// The length prefix makes the framing unambiguous whatever a path contains, and sorting makes
// the digest independent of file order in the request. The manifest is hashed as submitted,
// not with defaults filled, so that a later schema adding a default does not change the digest
// of the same upload (identical retries must keep returning the existing version).
import { createHash } from 'node:crypto';

const DIGEST_VERSION = 'svc-bundle-digest-v1';
const EXCLUDED_MANIFEST_KEYS = new Set(['namespace', '$schema']);

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** JSON with object keys sorted recursively (by UTF-16 code unit); undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function manifestHash(manifest: unknown): string {
  const record =
    manifest !== null && typeof manifest === 'object' && !Array.isArray(manifest) ? (manifest as Record<string, unknown>) : undefined;
  const hashed =
    record === undefined ? manifest : Object.fromEntries(Object.entries(record).filter(([key]) => !EXCLUDED_MANIFEST_KEYS.has(key)));
  return sha256Hex(canonicalJson(hashed));
}

export function bundleDigest(files: readonly { path: string; sha256: string }[], manifest: unknown): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const lines = [
    DIGEST_VERSION,
    ...sorted.map((file) => `file ${Buffer.byteLength(file.path)} ${file.path} ${file.sha256}`),
    `manifest ${manifestHash(manifest)}`,
  ];
  return sha256Hex(`${lines.join('\n')}\n`);
}
