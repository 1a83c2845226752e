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
    ['\uff0e\uff0e/evil.js', 'path_compatibility_character'],
    ['\u2024\u2024/evil.js', 'path_compatibility_character'],
    ['a/\ufe52\ufe52/evil.js', 'path_compatibility_character'],
    ['\uff0eenv', 'path_compatibility_character'],
    ['\ufb01le.js', 'path_compatibility_character'],
    ['a\u00a0b.js', 'path_compatibility_character'],
    ['COM\u00b9.js', 'path_compatibility_character'],
    ['CON', 'path_windows_reserved'],
    ['con.txt', 'path_windows_reserved'],
    ['Aux.js', 'path_windows_reserved'],
    ['a/nul.tar.gz', 'path_windows_reserved'],
    ['prn/index.html', 'path_windows_reserved'],
    ['com1.js', 'path_windows_reserved'],
    ['LPT9.css', 'path_windows_reserved'],
    ['lpt0.js', 'path_windows_reserved'],
    ['con .txt', 'path_windows_reserved'],
  ])('rejects %j with %s', (path, code) => {
    expect(codesOf(path)).toContain(code);
  });

  it.each(['console.js', 'com10.js', 'lpt.js', 'a/connect/x.js', 'nul-x.js', 'aux_/x.js', 'icon.png'])(
    'accepts %s, which only looks like a Windows device name',
    (path) => {
      expect(checkBundlePath(path)).toEqual({ ok: true, path });
    },
  );

  it('refuses a path whose NFKC form holds a parent segment, which NFC alone accepted', () => {
    const path = '\uff0e\uff0e/evil.js';
    expect(path.normalize('NFC')).toBe(path);
    expect(path.normalize('NFKC')).toBe('../evil.js');
    expect(codesOf(path)).toEqual(['path_compatibility_character']);
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
