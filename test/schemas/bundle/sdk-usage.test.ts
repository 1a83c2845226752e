import { describe, expect, it } from 'vitest';
import { sdkOfReference } from '../../../schemas/bundle/sdk-usage.ts';
import { expectProblem, expectValid, textFile, validate } from './fixtures.ts';

describe('sdkOfReference', () => {
  it.each([
    ['/developer/sdk/v1/semantic.js', 'semantic'],
    ['/developer/sdk/v1/data.js', 'semantic'],
    ['/developer/sdk/v1/improve.js', 'evolve'],
    ['/developer/sdk/v1/ui.css', 'ui'],
    ['/developer/sdk/v1/vision.js?v=3', 'vision'],
    ['https://svc.example/developer/sdk/v1/voice.js', 'voice'],
    ['//svc.example/developer/sdk/v1/model.js#x', 'model'],
  ])('%s loads %s', (reference, sdk) => {
    expect(sdkOfReference(reference)?.sdk).toBe(sdk);
  });

  it('flags unknown SDK files and ignores other paths', () => {
    expect(sdkOfReference('/developer/sdk/v1/camera.js')).toEqual({ file: 'camera.js', sdk: undefined });
    expect(sdkOfReference('/developer/sdk/v1/semantic.css')).toEqual({ file: 'semantic.css', sdk: undefined });
    expect(sdkOfReference('/developer/sdk/v2/semantic.js')).toBeUndefined();
    expect(sdkOfReference('./developer/sdk/v1/semantic.js')).toBeUndefined();
    expect(sdkOfReference('/assets/semantic.js')).toBeUndefined();
  });
});

describe('SDK registration (deploy-time analysis)', () => {
  const html = (body: string) => textFile('index.html', `<!doctype html>${body}`);

  it.each([
    ['html script src', [html('<script src="/developer/sdk/v1/vision.js"></script>')], 'files[0].content'],
    [
      'html module import',
      [html('<script type="module">import { detect } from "/developer/sdk/v1/vision.js";</script>')],
      'files[0].content',
    ],
    ['js import', [textFile('app.js', 'import * as v from "/developer/sdk/v1/vision.js";')], 'files[1].content'],
    ['js dynamic import', [textFile('app.mjs', "const v = await import('/developer/sdk/v1/vision.js');")], 'files[1].content'],
    ['js string literal', [textFile('app.js', 'const url = `/developer/sdk/v1/vision.js`; load(url);')], 'files[1].content'],
    ['css @import', [textFile('app.css', '@import "/developer/sdk/v1/vision.js";')], 'files[1].content'],
  ])('rejects an unregistered SDK found by %s, naming file and SDK', (_label, files, path) => {
    const problem = expectProblem(validate(files), path, 'sdk_unregistered');
    expect(problem.message).toContain('"vision"');
    expect(problem.message).toContain(files.at(-1)?.path);
  });

  it('the UI stylesheet counts as sdk ui (link href and css url())', () => {
    expectProblem(validate([html('<link rel="stylesheet" href="/developer/sdk/v1/ui.css">')]), 'files[0].content', 'sdk_unregistered');
    expectProblem(
      validate([textFile('a.css', '.x { background: url(/developer/sdk/v1/ui.css) }')]),
      'files[1].content',
      'sdk_unregistered',
    );
    expect(expectValid(validate([html('<link rel="stylesheet" href="/developer/sdk/v1/ui.css">')], { sdk: ['ui'] })).sdkUsed).toEqual([
      'ui',
    ]);
  });

  it('accepts registered SDKs, legacy names on either side', () => {
    const files = [
      html(
        '<script src="/developer/sdk/v1/data.js"></script><script src="/developer/sdk/v1/improve.js"></script><script src="/developer/sdk/v1/semantic.js"></script>',
      ),
    ];
    expect(expectValid(validate(files, { sdk: ['semantic', 'evolve'] })).sdkUsed).toEqual(['semantic', 'evolve']);
    expect(expectValid(validate(files, { sdk: ['connect', 'improve'] })).sdkUsed).toEqual(['semantic', 'evolve']);
  });

  it('reports each unregistered SDK once per file', () => {
    const result = validate([
      html(
        '<script src="/developer/sdk/v1/data.js"></script><script src="/developer/sdk/v1/semantic.js"></script><script src="/developer/sdk/v1/voice.js"></script>',
      ),
    ]);
    expect(result.ok ? [] : result.problems.map((p) => p.message.match(/SDK "(\w+)"/)?.[1])).toEqual(['semantic', 'voice']);
  });

  it('ignores commented-out references', () => {
    const files = [
      html('<!-- <script src="/developer/sdk/v1/vision.js"></script> -->'),
      textFile('a.js', '// import "/developer/sdk/v1/vision.js"\n/* "/developer/sdk/v1/voice.js" */'),
      textFile('a.css', '/* @import "/developer/sdk/v1/ui.css"; */'),
    ];
    expect(expectValid(validate(files)).sdkUsed).toEqual([]);
  });

  it('rejects a reference to an SDK that does not exist', () => {
    expectProblem(validate([textFile('a.js', 'import "/developer/sdk/v1/camera.js"')]), 'files[1].content', 'sdk_unknown');
  });
});
