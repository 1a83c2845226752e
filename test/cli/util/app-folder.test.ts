import { describe, expect, it } from 'vitest';
import { toBundleFile } from '../../../cli/util/app-folder.ts';

const file = (bytes: Buffer) => ({ path: 'f', bytes, sha256: '' });

describe('toBundleFile', () => {
  it('sends UTF-8 text as utf8 and other bytes as base64', () => {
    expect(toBundleFile(file(Buffer.from('héllo')))).toEqual({ path: 'f', encoding: 'utf8', content: 'héllo' });
    expect(toBundleFile(file(Buffer.from([0xff, 0xfe])))).toEqual({ path: 'f', encoding: 'base64', content: '//4=' });
  });

  it('sends a file holding U+0000 as base64 even when it is valid UTF-8 (a .wasm header), since the service refuses U+0000 in strings', () => {
    const wasm = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    expect(toBundleFile(file(wasm))).toEqual({ path: 'f', encoding: 'base64', content: wasm.toString('base64') });
  });
});
