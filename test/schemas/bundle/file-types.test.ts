import { describe, expect, it } from 'vitest';
import { extensionOf, fileTypeOf } from '../../../schemas/bundle/file-types.ts';

describe('file types', () => {
  it.each([
    'a.html',
    'a.htm',
    'a.css',
    'a.js',
    'a.mjs',
    'a.json',
    'a.map',
    'a.svg',
    'a.png',
    'a.jpg',
    'a.jpeg',
    'a.webp',
    'a.gif',
    'a.ico',
    'a.woff',
    'a.woff2',
    'a.md',
    'a.txt',
    'a.csv',
    'a.wasm',
    'A.PNG',
  ])('allows %s', (path) => {
    expect(fileTypeOf(path)).toBeDefined();
  });

  it.each(['a.exe', 'a.sh', 'a.php', 'a.zip', 'a.mp4', 'README', 'a.', 'a.toString', 'a.constructor', 'dir.js/file'])(
    'refuses %s',
    (path) => {
      expect(fileTypeOf(path)).toBeUndefined();
    },
  );

  it('marks text types for decoding and gives content types', () => {
    expect(fileTypeOf('app.js')).toEqual({ contentType: 'text/javascript; charset=utf-8', text: true });
    expect(fileTypeOf('logo.png')).toEqual({ contentType: 'image/png', text: false });
  });

  it('takes the extension of the last segment only', () => {
    expect(extensionOf('a.b/c')).toBe('');
    expect(extensionOf('x/archive.tar.GZ')).toBe('gz');
  });
});
