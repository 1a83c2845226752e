import { describe, expect, it } from 'vitest';
import { expectValid, textFile, validate } from './fixtures.ts';

const codes = (result: ReturnType<typeof validate>) => result.warnings.map((w) => [w.path, w.code]);
const workflow = (every: string) => ({
  sdk: ['semantic'],
  workflow: { trigger: { schedule: { every } }, steps: [{ id: 'a', kind: 'use', capability: 'x' }] },
});

describe('warnings', () => {
  it('none for a plain bundle', () => {
    expect(expectValid(validate([])).warnings).toEqual([]);
  });

  it('warns for every limit above its default, never for one at or below it', () => {
    const result = validate([], {
      limits: { dailyTokens: 2_000_000, requestsPerMinute: 30, notificationsPerDay: 5, worldCreditsPerDay: 10, monthlyBudgetUsd: 900 },
    });
    expect(result.ok).toBe(true);
    expect(codes(result)).toEqual([
      ['manifest.limits.dailyTokens', 'limit_above_default'],
      ['manifest.limits.worldCreditsPerDay', 'limit_above_default'],
    ]);
  });

  it('warns for a schedule at most hourly, not for a slower one', () => {
    expect(codes(validate([], workflow('1h')))).toEqual([['manifest.workflow.trigger.schedule.every', 'schedule_frequent']]);
    expect(codes(validate([], workflow('5m')))).toEqual([['manifest.workflow.trigger.schedule.every', 'schedule_frequent']]);
    expect(codes(validate([], workflow('61m')))).toEqual([]);
    expect(codes(validate([], workflow('1d')))).toEqual([]);
  });

  it('rejects (not warns) a schedule denser than 5 minutes', () => {
    const result = validate([], workflow('2m'));
    expect(result.ok).toBe(false);
  });

  it.each([
    ['setInterval + fetch', 'setInterval(() => fetch("/api/x"), 5000);'],
    ['setInterval + XMLHttpRequest', 'setInterval(function () { const r = new XMLHttpRequest(); }, 1000);'],
    ['setInterval + semantic query', 'setInterval(async () => render(await semantic.query("sales.Order")), 1000);'],
    ['re-armed setTimeout (function)', 'async function poll() { await fetch("/x"); setTimeout(poll, 2000); }\npoll();'],
    ['re-armed setTimeout (arrow)', 'const tick = async () => { render(await data.objects("a")); setTimeout(() => tick(), 1000); };'],
    ['re-armed setTimeout (method)', 'class A {\n  refresh() { fetch("/x"); setTimeout(() => this.refresh(), 100); }\n}'],
    ['re-armed setTimeout (method on one line)', 'class A { refresh() { fetch("/x"); setTimeout(() => this.refresh(), 100); } }'],
    ['re-armed setTimeout (named function expression)', 'const load = function poll() { fetch("/x"); setTimeout(load, 100); };'],
    ['re-armed setTimeout (generator method)', 'const o = { *pump() { fetch("/x"); setTimeout(() => o.pump().next(), 1); } };'],
    ['a long comment between the pieces', `async function poll() {/*${' '.repeat(10_000)}*/ await fetch("/x"); setTimeout(poll, 2000); }`],
  ])('warns for polling with a data fetch: %s', (_label, code) => {
    expect(codes(validate([textFile('app.js', code)]))).toEqual([['files[1].content', 'polling_fetch']]);
  });

  it('warns for polling inside an inline script (which the page’s policy blocks too)', () => {
    expect(codes(validate([textFile('index.html', '<script>setInterval(() => fetch("/x"), 1000)</script>')]))).toEqual([
      ['files[0].content', 'polling_fetch'],
      ['files[0].content', 'inline_script_blocked'],
    ]);
  });

  it.each([
    ['a timer without a fetch', 'setInterval(() => clock.tick(), 1000);'],
    ['a fetch without a timer', 'fetch("/x").then(render);'],
    ['a one-shot setTimeout', 'setTimeout(() => fetch("/x"), 1000);'],
    ['a setTimeout naming a function it does not run in', 'function poll() { fetch("/x"); }\nfunction other() { setTimeout(poll, 1000); }'],
    ['a keyword before a block is no function name', 'if (a) { fetch("/x"); setTimeout(function () { if (b) go(); }, 1); }'],
    ['a timer and a fetch only in strings and comments', '// setInterval(fetch, 1)\nconst s = "setInterval(() => fetch())";'],
    ['timer and fetch in different files', null],
  ])('does not warn for %s', (_label, code) => {
    const files =
      code === null ? [textFile('a.js', 'setInterval(tick, 1000)'), textFile('b.js', 'fetch("/x")')] : [textFile('app.js', code)];
    expect(codes(validate(files))).toEqual([]);
  });

  it('warnings never block', () => {
    const result = validate([textFile('app.js', 'setInterval(() => fetch("/x"), 1)')], {
      ...workflow('5m'),
      limits: { dailyTokens: 5_000_000 },
    });
    expect(result.ok).toBe(true);
    expect(result.warnings).toHaveLength(3);
  });
});

describe('polling detection cost', () => {
  it.each([
    ['nested functions re-arming', 'function a(){setTimeout('],
    ['nested setTimeout calls', 'setTimeout(setTimeout('],
    ['unbalanced calls', 'a(\n'],
  ])('stays linear for %s', (_label, unit) => {
    const code = `fetch(x);\n${unit.repeat(Math.floor((1024 * 1024) / unit.length))}`;
    const started = performance.now();
    validate([textFile('app.js', code)]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
