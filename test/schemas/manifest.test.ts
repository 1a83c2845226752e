import { describe, expect, it } from 'vitest';
import { LEGACY_MANIFEST_FILE_NAME, MANIFEST_FILE_NAME, MANIFEST_FILE_NAMES } from '../../schemas/manifest/manifest.ts';
import { parseManifest, salvageManifest } from '../../schemas/manifest/parse-manifest.ts';
import { baseManifest, expectProblemAt, parsed, problemsOf } from './manifest-helpers.ts';

describe('manifest file names', () => {
  it('defaults to plugin.json and still knows svc.app.json', () => {
    expect(MANIFEST_FILE_NAME).toBe('plugin.json');
    expect(LEGACY_MANIFEST_FILE_NAME).toBe('svc.app.json');
    expect(MANIFEST_FILE_NAMES).toEqual(['plugin.json', 'svc.app.json']);
  });
});

describe('defaults', () => {
  it('fills every default of an old manifest that lacks newer fields', () => {
    expect(parsed()).toEqual({
      manifestVersion: 1,
      slug: 'sales-board',
      version: '1.0.0',
      title: 'Sales board',
      summary: '',
      examples: [],
      category: 'general',
      entry: 'index.html',
      sdk: [],
      permissions: { camera: false, microphone: false },
      models: [],
      datasets: [],
      streams: [],
      cameras: [],
      agents: false,
      semantic: { types: [], actions: [], write: [] },
      exports: [],
      auth: { access: 'company', publicLink: 'signin' },
      storage: { type: 'none' },
      limits: {
        computeMinutesPerMonth: 2000,
        dailyTokens: 1_000_000,
        requestsPerMinute: 30,
        realtimeSessionsPerDay: 100,
        notificationsPerDay: 20,
        worldCreditsPerDay: 0,
      },
      cdn: [],
    });
  });
  it('fills defaults inside partially written objects', () => {
    const manifest = parsed({
      permissions: { camera: true },
      auth: { access: 'restricted' },
      semantic: { types: ['sales.Order'] },
      limits: { dailyTokens: 5 },
    });
    expect(manifest.permissions).toEqual({ camera: true, microphone: false });
    expect(manifest.auth).toEqual({ access: 'restricted', publicLink: 'signin' });
    expect(manifest.semantic).toEqual({ types: ['sales.Order'], actions: [], write: [] });
    expect(manifest.limits.dailyTokens).toBe(5);
    expect(manifest.limits.requestsPerMinute).toBe(30);
    expect(manifest.limits.monthlyBudgetUsd).toBeUndefined();
  });
  it('keeps entry null (an app without interface)', () => {
    expect(parsed({ entry: null }).entry).toBeNull();
  });
});

describe('parseManifest', () => {
  it('reads the text of a manifest file', () => {
    const result = parseManifest(JSON.stringify(baseManifest()));
    expect(result.ok).toBe(true);
  });
  it('reports malformed JSON text at the root', () => {
    expect(parseManifest('{"slug":')).toEqual({
      ok: false,
      problems: [expect.objectContaining({ path: 'manifest', code: 'malformed_json' })],
    });
  });
  it('rejects a non-object at the root', () => {
    expect(parseManifest([])).toEqual({ ok: false, problems: [expect.objectContaining({ path: 'manifest', code: 'invalid_type' })] });
  });
  it('uses the given root for problem paths', () => {
    const result = parseManifest({}, 'body');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.path)).toEqual(['body.slug', 'body.version', 'body.title']);
  });
  it('collects every problem, not just the first', () => {
    const problems = problemsOf({ slug: 'X', version: '1', title: '', unknown: 1 });
    expect(problems.map((p) => p.path)).toEqual(['manifest.slug', 'manifest.version', 'manifest.title', 'manifest.unknown']);
  });
});

describe('strict objects', () => {
  it.each([
    [{ extra: 1 }, 'manifest.extra'],
    [{ owner: { department: 'Sales', boss: 'x' } }, 'manifest.owner.boss'],
    [{ permissions: { gps: true } }, 'manifest.permissions.gps'],
    [{ semantic: { read: [] } }, 'manifest.semantic.read'],
    [{ auth: { mode: 'x' } }, 'manifest.auth.mode'],
    [{ storage: { type: 'none', size: 1 } }, 'manifest.storage.size'],
    [{ limits: { cpu: 1 } }, 'manifest.limits.cpu'],
    [{ evolve: { colors: [] } }, 'manifest.evolve.colors'],
    [{ sdk: ['semantic'], workflow: { steps: [], schedule: {} } }, 'manifest.workflow.schedule'],
  ])('rejects unknown keys with their path (%j)', (overrides, path) => {
    expectProblemAt(problemsOf(overrides), path, 'unrecognized_keys');
  });
});

describe('scalar fields', () => {
  it.each([
    ['slug', 'a', 'ab'],
    ['slug', 'Sales', 'sales-2'],
    ['slug', `a${'b'.repeat(48)}`, `a${'b'.repeat(47)}`],
    ['version', '1.0', '1.0.0'],
    ['version', '01.0.0', '10.0.0'],
    ['version', '1.0.0-', '1.0.0-beta.1'],
    ['version', '1000000.0.0', '999999.0.0'],
    ['title', '', 'T'],
    ['title', 'x'.repeat(61), 'x'.repeat(60)],
    ['summary', 'x'.repeat(241), 'x'.repeat(240)],
    ['description', 'x'.repeat(2001), 'x'.repeat(2000)],
    ['$schema', 'x'.repeat(201), 'https://svc.example/schemas/manifest/v1.json'],
    ['manifestVersion', 2, 1],
    ['category', 'games', 'vision'],
    ['namespace', 'cell-A', 'cell-acme'],
    ['namespace', 'private', 'public'],
    ['entry', 'Index.html', 'pages/index.html'],
    ['entry', 'index.htm', 'index.html'],
    ['entry', `${'a'.repeat(116)}.html`, `${'a'.repeat(115)}.html`],
    ['mcpUi', '/ui.html', 'mcp/ui.html'],
    ['deviceType', 'tablet', 'mobile'],
    ['agents', 'yes', true],
  ])('%s: rejects %j and accepts %j', (field, bad, good) => {
    expectProblemAt(problemsOf({ [field]: bad }), `manifest.${field}`);
    expect(problemsOf({ [field]: good })).toEqual([]);
  });
});

describe('list fields', () => {
  it.each([
    ['examples', ['x'], ['hi'], 0],
    ['examples', Array(7).fill('hello'), Array(6).fill('hello'), undefined],
    ['examples', ['x'.repeat(121)], ['x'.repeat(120)], 0],
    ['models', [''], ['gpt'], 0],
    ['models', Array(13).fill('m'), Array(12).fill('m'), undefined],
    ['datasets', ['x'.repeat(65)], ['x'.repeat(64)], 0],
    ['streams', ['Bad'], ['orders-live'], 0],
    ['streams', Array(13).fill('ab'), Array(12).fill('ab'), undefined],
    ['cameras', ['a'], ['door-1'], 0],
    ['cameras', Array(17).fill('ab'), Array(16).fill('ab'), undefined],
  ])('%s: rejects %j and accepts %j', (field, bad, good, index) => {
    expectProblemAt(problemsOf({ [field]: bad }), index === undefined ? `manifest.${field}` : `manifest.${field}[${index}]`);
    expect(problemsOf({ [field]: good })).toEqual([]);
  });

  it('owner needs a department of 1 to 40 characters', () => {
    expectProblemAt(problemsOf({ owner: { team: 'a' } }), 'manifest.owner.department', 'invalid_type');
    expectProblemAt(problemsOf({ owner: { department: 'x'.repeat(41) } }), 'manifest.owner.department', 'too_big');
    expectProblemAt(problemsOf({ owner: { department: 'Sales', contact: 'x'.repeat(61) } }), 'manifest.owner.contact', 'too_big');
    expect(parsed({ owner: { department: 'Sales', team: 'Ops', contact: 'ops@acme.example' } }).owner).toEqual({
      department: 'Sales',
      team: 'Ops',
      contact: 'ops@acme.example',
    });
  });

  it('storage is only {type: none}', () => {
    expectProblemAt(problemsOf({ storage: { type: 'kv' } }), 'manifest.storage.type');
    expect(parsed({ storage: { type: 'none' } }).storage).toEqual({ type: 'none' });
  });
});

describe('sdk', () => {
  it('normalizes legacy names to semantic and improve to evolve, de-duplicated', () => {
    expect(parsed({ sdk: ['data', 'connect', 'workflow', 'auth', 'log', 'billing'] }).sdk).toEqual(['semantic']);
    expect(parsed({ sdk: ['improve', 'evolve', 'ui', 'semantic', 'data'] }).sdk).toEqual(['semantic', 'evolve', 'ui']);
  });
  it('keeps canonical names in canonical order', () => {
    expect(parsed({ sdk: ['ui', 'modeling', 'vision', 'voice', 'video', 'model'] }).sdk).toEqual([
      'vision',
      'voice',
      'video',
      'model',
      'modeling',
      'ui',
    ]);
  });
  it('rejects unknown names with the item path and more than 15 items', () => {
    expectProblemAt(problemsOf({ sdk: ['semantic', 'camera'] }), 'manifest.sdk[1]', 'invalid_value');
    expectProblemAt(problemsOf({ sdk: Array(16).fill('ui') }), 'manifest.sdk', 'too_big');
    expect(problemsOf({ sdk: Array(15).fill('ui') })).toEqual([]);
  });
});

describe('semantic', () => {
  it('accepts dotted names and *', () => {
    expect(parsed({ semantic: { types: ['*'], actions: ['sales.Order.close'], write: ['a.b.c.d.e'] } }).semantic.write).toEqual([
      'a.b.c.d.e',
    ]);
  });
  it.each([
    [{ types: ['1abc'] }, 'manifest.semantic.types[0]'],
    [{ actions: ['a..b'] }, 'manifest.semantic.actions[0]'],
    [{ write: ['a.b.c.d.e.f'] }, 'manifest.semantic.write[0]'],
    [{ types: [`a${'b'.repeat(80)}`] }, 'manifest.semantic.types[0]'],
    [{ types: ['**'] }, 'manifest.semantic.types[0]'],
    [{ types: Array(25).fill('a') }, 'manifest.semantic.types'],
  ])('rejects %j', (semantic, path) => {
    expectProblemAt(problemsOf({ semantic }), path);
  });
});

describe('auth', () => {
  it('reads legacy publicLink open as signin', () => {
    expect(parsed({ auth: { publicLink: 'open' } }).auth.publicLink).toBe('signin');
    expect(parsed({ auth: { publicLink: 'members' } }).auth.publicLink).toBe('members');
  });
  it('rejects other values', () => {
    expectProblemAt(problemsOf({ auth: { access: 'public' } }), 'manifest.auth.access', 'invalid_value');
    expectProblemAt(problemsOf({ auth: { publicLink: 'anyone' } }), 'manifest.auth.publicLink', 'invalid_value');
  });
});

describe('cdn', () => {
  it('allows exactly the two public script CDNs', () => {
    expect(parsed({ cdn: ['unpkg.com', 'cdn.jsdelivr.net'] }).cdn).toEqual(['unpkg.com', 'cdn.jsdelivr.net']);
    expectProblemAt(problemsOf({ cdn: ['unpkg.com', 'cdn.jsdelivr.net', 'unpkg.com'] }), 'manifest.cdn', 'too_big');
    expectProblemAt(problemsOf({ cdn: ['cdnjs.cloudflare.com'] }), 'manifest.cdn[0]', 'invalid_value');
    expectProblemAt(problemsOf({ cdn: ['https://unpkg.com'] }), 'manifest.cdn[0]', 'invalid_value');
  });
  it('de-duplicates hosts', () => {
    expect(parsed({ cdn: ['unpkg.com', 'unpkg.com'] }).cdn).toEqual(['unpkg.com']);
  });
});

describe('salvageManifest', () => {
  it('keeps every field that is valid on its own', () => {
    const salvaged = salvageManifest({ slug: 'BAD', version: '1.0.0', sdk: ['data'], evolve: 7 });
    expect(salvaged.slug).toBeUndefined();
    expect(salvaged.version).toBe('1.0.0');
    expect(salvaged.sdk).toEqual(['semantic']);
    expect(salvaged.entry).toBe('index.html');
    expect('evolve' in salvaged).toBe(false);
  });
  it('returns nothing for a non-object', () => {
    expect(salvageManifest('x')).toEqual({});
  });
});
