import { describe, expect, it } from 'vitest';
import { bundleDigest, canonicalJson, manifestHash, sha256Hex } from '../../../schemas/bundle/digest.ts';
import { validateBundle } from '../../../schemas/bundle/validate-bundle.ts';
import { base64File, baseManifest, expectValid, INDEX_HTML, textFile, validate } from './fixtures.ts';

const files = [
  textFile('index.html', INDEX_HTML),
  textFile('app.js', 'console.log(1)'),
  base64File('img/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47])),
];
const digestOf = (fileList = files, manifest: Record<string, unknown> = baseManifest()) =>
  expectValid(validateBundle({ manifest, files: fileList })).digest;

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined }, '10': 0, '2': 0 })).toBe(
      '{"10":0,"2":0,"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
    );
  });
});

describe('digest', () => {
  it('is 64 hex characters', () => {
    expect(digestOf()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('follows the documented construction', () => {
    const hashes = files.map((f) => ({
      path: f.path,
      sha256: sha256Hex(f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : Buffer.from(f.content)),
    }));
    const manifest = baseManifest();
    const expected = sha256Hex(
      [
        'svc-bundle-digest-v1',
        ...[...hashes].sort((a, b) => (a.path < b.path ? -1 : 1)).map((h) => `file ${Buffer.byteLength(h.path)} ${h.path} ${h.sha256}`),
        `manifest ${manifestHash(manifest)}`,
      ].join('\n') + '\n',
    );
    expect(bundleDigest(hashes, manifest)).toBe(expected);
    expect(digestOf()).toBe(expected);
  });

  it('does not depend on file order or manifest key order', () => {
    expect(digestOf([...files].reverse())).toBe(digestOf());
    const reordered = Object.fromEntries(Object.entries(baseManifest()).reverse());
    expect(digestOf(files, reordered)).toBe(digestOf());
  });

  it('does not depend on the encoding used to send a file', () => {
    expect(digestOf([base64File('index.html', INDEX_HTML), ...files.slice(1)])).toBe(digestOf());
  });

  it('ignores namespace and $schema', () => {
    expect(digestOf(files, baseManifest({ namespace: 'cell-acme', $schema: 'https://svc.example/schemas/manifest/v1.json' }))).toBe(
      digestOf(),
    );
  });

  it('changes with any byte, path or manifest change', () => {
    const base = digestOf();
    const variants = [
      digestOf([textFile('index.html', `${INDEX_HTML} `), ...files.slice(1)]),
      digestOf([files[0]!, textFile('app.js', 'console.log(2)'), files[2]!]),
      digestOf([files[0]!, textFile('main.js', 'console.log(1)'), files[2]!]),
      digestOf(files.slice(0, 2)),
      digestOf([...files, textFile('extra.txt', '')]),
      digestOf(files, baseManifest({ title: 'Sales board 2' })),
      digestOf(files, baseManifest({ version: '1.0.1' })),
      digestOf(files, baseManifest({ summary: '' })),
    ];
    for (const digest of variants) expect(digest).not.toBe(base);
    expect(new Set(variants).size).toBe(variants.length);
  });

  it('frames paths unambiguously', () => {
    const a = bundleDigest([{ path: 'a b', sha256: 'c' }], {});
    const b = bundleDigest([{ path: 'a', sha256: 'b c' }], {});
    expect(a).not.toBe(b);
  });

  it('is also reported for bundles validated through the helper', () => {
    expect(expectValid(validate([])).digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
