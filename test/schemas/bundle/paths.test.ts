import { describe, expect, it } from 'vitest';
import { checkBundlePath, pathKey } from '../../../schemas/bundle/paths.ts';

const codesOf = (path: string) => {
  const result = checkBundlePath(path);
  return result.ok ? [] : result.rejections.map((r) => r.code);
};

describe('checkBundlePath', () => {
  it.each([
    'index.html',
    'assets/app.js',
    'a/b/c/d.css',
    'img/logo-2x.png',
    'données/été.json',
    'skills/sales/SKILL.md',
    'a b/c d.txt',
    'x~y/z.js',
  ])('accepts %s', (path) => {
    expect(checkBundlePath(path)).toEqual({ ok: true, path });
  });

  it('normalizes to NFC', () => {
    const decomposed = 'e\u0301te\u0301.json';
    expect(checkBundlePath(decomposed)).toEqual({ ok: true, path: 'été.json' });
  });

  it.each([
    ['', 'path_empty'],
    [`${'a/'.repeat(128)}x.js`, 'path_too_long'],
    ['/index.html', 'path_absolute'],
    ['a\\b.js', 'path_character'],
    ['a\u0000b.js', 'path_character'],
    ['a\nb.js', 'path_character'],
    ['a\u007fb.js', 'path_character'],
    ['a\u202eb.js', 'path_character'],
    ['a?.js', 'path_character'],
    ['a#b.js', 'path_character'],
    ['a%2e.js', 'path_character'],
    ['c:/x.js', 'path_character'],
    ['a//b.js', 'path_empty_segment'],
    ['a/', 'path_empty_segment'],
    ['../x.js', 'path_parent_segment'],
    ['a/../../x.js', 'path_parent_segment'],
    ['./x.js', 'path_hidden'],
    ['.env', 'path_hidden'],
    ['a/.git/config.txt', 'path_hidden'],
    ['a./x.js', 'path_trailing_dot'],
    ['a /x.js', 'path_trailing_dot'],
    ['node_modules/x/index.js', 'path_node_modules'],
    ['lib/Node_Modules/x.js', 'path_node_modules'],
    ['developer/sdk/v1/semantic.js', 'path_sdk_copy'],
    ['vendor/developer/sdk/v1/ui.css', 'path_sdk_copy'],
    ['plugin.json', 'path_manifest_file'],
    ['svc.app.json', 'path_manifest_file'],
    ['Plugin.JSON', 'path_manifest_file'],
    ['about.md', 'path_reserved'],
    ['_v/abc/app.js', 'path_reserved'],
  ])('rejects %j with %s', (path, code) => {
    expect(codesOf(path)).toContain(code);
  });

  it('allows the manifest file names below the root', () => {
    expect(checkBundlePath('data/plugin.json').ok).toBe(true);
  });

  it('reports every reason once', () => {
    expect(codesOf('/../node_modules/.x/a\\b')).toEqual([
      'path_absolute',
      'path_character',
      'path_empty_segment',
      'path_parent_segment',
      'path_hidden',
      'path_node_modules',
    ]);
  });
});

describe('pathKey', () => {
  it('is case-insensitive and NFC', () => {
    expect(pathKey('Index.HTML')).toBe(pathKey('index.html'));
    expect(pathKey('E\u0301.js')).toBe(pathKey('\u00e9.js'));
    expect(pathKey('a.js')).not.toBe(pathKey('b.js'));
  });
});
