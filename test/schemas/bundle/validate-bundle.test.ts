import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../schemas/bundle/digest.ts';
import { bundleInputSchema, MAX_BUNDLE_FILES } from '../../../schemas/bundle/request.ts';
import { MAX_BUNDLE_BYTES, validateBundle } from '../../../schemas/bundle/validate-bundle.ts';
import { issuesToProblems } from '../../../schemas/problems.ts';
import { base64File, baseManifest, expectProblem, expectValid, INDEX_HTML, problemsOf, skillText, textFile, validate } from './fixtures.ts';

describe('validateBundle: success', () => {
  it('returns the normalized manifest, decoded files sorted by path, skills, sdkUsed, digest and size', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const result = expectValid(
      validateBundle({
        manifest: baseManifest({ sdk: ['data', 'ui'], auth: { publicLink: 'open' } }),
        files: [
          textFile('index.html', '<link rel="stylesheet" href="/developer/sdk/v1/ui.css"><script src="app.js" type="module"></script>'),
          textFile('app.js', 'import "/developer/sdk/v1/data.js";'),
          base64File('img/logo.png', png),
        ],
      }),
    );
    expect(result.manifest.sdk).toEqual(['semantic', 'ui']);
    expect(result.manifest.auth.publicLink).toBe('signin');
    expect(result.files.map((f) => f.path)).toEqual(['app.js', 'img/logo.png', 'index.html']);
    const logo = result.files[1];
    expect(logo?.bytes.equals(png)).toBe(true);
    expect(logo?.sha256).toBe(sha256Hex(png));
    expect(logo?.contentType).toBe('image/png');
    expect(result.sdkUsed).toEqual(['semantic', 'ui']);
    expect(result.size).toBe(result.files.reduce((n, f) => n + f.bytes.length, 0));
    expect(result.warnings).toEqual([]);
  });

  it('generates a skill when the bundle ships none', () => {
    const result = expectValid(validate([], { summary: 'Open orders' }));
    expect(result.skills).toEqual([expect.objectContaining({ name: 'sales-board', description: 'Open orders', generated: true })]);
  });

  it('returns shipped skills and no generated one', () => {
    const result = expectValid(validate([textFile('skills/orders/SKILL.md', skillText('orders'))]));
    expect(result.skills.map((s) => [s.name, s.generated])).toEqual([['orders', false]]);
    expect(result.files.map((f) => f.path)).toContain('skills/orders/SKILL.md');
  });

  it('an app without interface (entry null) needs no html', () => {
    const result = validateBundle({
      manifest: baseManifest({ entry: null }),
      files: [textFile('skills/orders/SKILL.md', skillText('orders'))],
    });
    expect(expectValid(result).manifest.entry).toBeNull();
  });

  it('accepts an empty bundle without interface', () => {
    expect(validateBundle({ manifest: baseManifest({ entry: null }), files: [] }).ok).toBe(true);
  });
});

describe('validateBundle: pages', () => {
  it('requires the entry file', () => {
    expectProblem(
      validateBundle({ manifest: baseManifest(), files: [textFile('main.html', INDEX_HTML)] }),
      'manifest.entry',
      'page_missing',
    );
    expectValid(validateBundle({ manifest: baseManifest({ entry: 'main.html' }), files: [textFile('main.html', INDEX_HTML)] }));
  });

  it('requires the mcpUi file when set', () => {
    expectProblem(validate([], { mcpUi: 'mcp/ui.html' }), 'manifest.mcpUi', 'page_missing');
    expectValid(validate([textFile('mcp/ui.html', INDEX_HTML)], { mcpUi: 'mcp/ui.html' }));
  });

  it('matches the entry exactly (case matters in URLs)', () => {
    expectProblem(
      validateBundle({ manifest: baseManifest(), files: [textFile('Index.html', INDEX_HTML)] }),
      'manifest.entry',
      'page_missing',
    );
  });
});

describe('validateBundle: files', () => {
  it.each([
    ['../x.js', 'path_parent_segment'],
    ['/x.js', 'path_absolute'],
    ['a\\x.js', 'path_character'],
    ['.env.txt', 'path_hidden'],
    ['node_modules/a/index.js', 'path_node_modules'],
    ['developer/sdk/v1/semantic.js', 'path_sdk_copy'],
    ['plugin.json', 'path_manifest_file'],
    ['svc.app.json', 'path_manifest_file'],
    ['about.md', 'path_reserved'],
    ['run.exe', 'file_type'],
    ['Makefile', 'file_type'],
  ])('rejects %s at files[1].path with %s', (path, code) => {
    expectProblem(validate([textFile(path, 'x')]), 'files[1].path', code);
  });

  it('rejects duplicates, also differing only in case or Unicode form', () => {
    expectProblem(validate([textFile('a.js', '1'), textFile('a.js', '2')]), 'files[2].path', 'path_duplicate');
    expectProblem(validate([textFile('App.js', '1'), textFile('app.JS', '2')]), 'files[2].path', 'path_duplicate');
    expectProblem(validate([textFile('\u00e9.js', '1'), textFile('e\u0301.js', '2')]), 'files[2].path', 'path_duplicate');
  });

  it('stores a path sent in NFD as NFC', () => {
    expect(expectValid(validate([textFile('e\u0301.js', '1')])).files.map((f) => f.path)).toContain('\u00e9.js');
  });

  it('rejects invalid base64 and text files that are not UTF-8', () => {
    expectProblem(validate([{ path: 'a.png', encoding: 'base64', content: 'not base64!' }]), 'files[1].content', 'content_invalid_base64');
    expectProblem(validate([base64File('a.js', Buffer.from([0x66, 0xff]))]), 'files[1].content', 'content_invalid_utf8');
    expectProblem(validate([{ path: 'a.js', encoding: 'utf8', content: '\udc00' }]), 'files[1].content', 'content_invalid_utf8');
    expectValid(validate([base64File('a.png', Buffer.from([0x66, 0xff]))]));
  });

  it(`allows ${MAX_BUNDLE_FILES} files and rejects one more`, () => {
    const files = (n: number) => Array.from({ length: n - 1 }, (_, i) => textFile(`f/${i}.txt`, ''));
    expectValid(validate(files(MAX_BUNDLE_FILES)));
    expectProblem(validate(files(MAX_BUNDLE_FILES + 1)), 'files', 'too_many_files');
  });

  it(`looks at the first ${MAX_BUNDLE_FILES} files only`, () => {
    const files = [...Array.from({ length: MAX_BUNDLE_FILES - 1 }, (_, i) => textFile(`f/${i}.txt`, '')), textFile('../beyond.js', '')];
    expect(problemsOf(validate(files)).map((p) => [p.path, p.code])).toEqual([['files', 'too_many_files']]);
  });

  it('refuses an oversized bundle before decoding or analysing it', () => {
    const result = validate([{ path: 'big.png', encoding: 'base64', content: `${'A'.repeat(4 * 1024 * 1024)}*` }], {
      evolve: { tokens: [{ name: '--x', slot: 'hero', min: 0, max: 1 }] },
    });
    // Neither the bad base64 character nor the slot no page declares: nothing was read.
    expect(problemsOf(result).map((p) => [p.path, p.code])).toEqual([['files', 'bundle_too_large']]);
  });

  it('quotes at most 200 characters of a path in a message', () => {
    const path = `${'a'.repeat(10_000)}.exe`;
    const messages = problemsOf(validate([textFile(path, '')])).map((p) => p.message);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message.length).toBeLessThan(400);
  });

  it('allows 3 MB decoded and rejects one byte more', () => {
    const index = Buffer.byteLength(INDEX_HTML);
    const fill = (n: number) => base64File('big.png', Buffer.alloc(n));
    expectValid(validate([fill(MAX_BUNDLE_BYTES - index)]));
    expectProblem(validate([fill(MAX_BUNDLE_BYTES - index + 1)]), 'files', 'bundle_too_large');
  });
});

describe('validateBundle: collecting problems', () => {
  it('reports every problem of manifest, files, skills, SDK use and evolve slots at once', () => {
    const result = validateBundle({
      manifest: baseManifest({ title: '', evolve: { tokens: [{ name: '--x', slot: 'nowhere', min: 0, max: 1 }] } }),
      files: [
        textFile('main.html', '<script src="/developer/sdk/v1/vision.js"></script>'),
        textFile('../up.js', ''),
        textFile('skills/orders/SKILL.md', skillText('other')),
        { path: 'x.png', encoding: 'base64', content: '@@' },
      ],
    });
    expect(problemsOf(result).map((p) => [p.path, p.code])).toEqual([
      ['manifest.title', 'too_small'],
      ['manifest.entry', 'page_missing'],
      ['files[1].path', 'path_parent_segment'],
      ['files[3].content', 'content_invalid_base64'],
      ['files[2].content', 'skill_name_mismatch'],
      ['files[0].content', 'sdk_unregistered'],
      ['manifest.evolve.tokens[0].slot', 'evolve_slot_missing'],
    ]);
  });

  it('still checks SDK registration against a valid sdk field when another field is broken', () => {
    const result = validateBundle({
      manifest: baseManifest({ slug: 'BAD', sdk: ['semantic'] }),
      files: [
        textFile('index.html', '<script src="/developer/sdk/v1/semantic.js"></script><script src="/developer/sdk/v1/voice.js"></script>'),
      ],
    });
    expect(problemsOf(result).map((p) => p.code)).toEqual(['invalid_format', 'sdk_unregistered']);
  });

  it('a workflow manifest without semantic in sdk is rejected', () => {
    expectProblem(
      validate([], { workflow: { steps: [{ id: 'a', kind: 'use', capability: 'x' }] } }),
      'manifest.sdk',
      'workflow_sdk_missing',
    );
  });

  it('returns warnings with the problems', () => {
    const result = validate([textFile('bad|name.js', '')], { limits: { dailyTokens: 2_000_000 } });
    expect(result.ok).toBe(false);
    expect(result.warnings.map((w) => w.code)).toEqual(['limit_above_default']);
  });
});

describe('bundleInputSchema (request shape for the route)', () => {
  it('accepts {manifest, files} and rejects unknown keys and encodings', () => {
    expect(bundleInputSchema.safeParse({ manifest: {}, files: [textFile('a.js', '')] }).success).toBe(true);
    expect(bundleInputSchema.safeParse({ manifest: {}, files: [{ path: 'a.js', encoding: 'hex', content: '' }] }).success).toBe(false);
    expect(bundleInputSchema.safeParse({ manifest: {}, files: [{ ...textFile('a.js', ''), mode: 644 }] }).success).toBe(false);
    expect(bundleInputSchema.safeParse({ manifest: {}, files: [], extra: 1 }).success).toBe(false);
  });

  it(`refuses more than ${MAX_BUNDLE_FILES} files with too_many_files, before reading any`, () => {
    const files = Array.from({ length: 100_000 }, () => ({ path: 1, encoding: 'gzip' }));
    const parsed = bundleInputSchema.safeParse({ manifest: {}, files });
    expect(parsed.success).toBe(false);
    expect(issuesToProblems(parsed.error?.issues ?? [], '')).toEqual([
      { path: 'files', code: 'too_many_files', message: `100000 files; at most ${MAX_BUNDLE_FILES} are allowed` },
    ]);
  });
});
