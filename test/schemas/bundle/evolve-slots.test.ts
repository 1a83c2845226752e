import { describe, expect, it } from 'vitest';
import { expectProblem, expectValid, textFile, validate } from './fixtures.ts';

const page = textFile(
  'index.html',
  '<main><section data-evolve="hero"><h1>Sales</h1></section><footer data-evolve=\'footer\'></footer></main>',
);
const token = (slot: string) => ({ name: '--accent-hue', slot, min: 0, max: 360 });

describe('evolve slots', () => {
  it('accepts tokens on scanned slots', () => {
    expectValid(validate([page], { evolve: { tokens: [token('hero'), { ...token('footer'), name: '--gap' }] } }));
  });

  it('accepts a token on a declared alias', () => {
    expectValid(validate([page], { evolve: { slots: [{ name: 'hero', aliases: ['banner'] }], tokens: [token('banner')] } }));
  });

  it('rejects a token on a slot that is neither scanned nor an alias', () => {
    const problem = expectProblem(
      validate([page], { evolve: { slots: [{ name: 'sidebar' }], tokens: [token('hero'), { ...token('sidebar'), name: '--w' }] } }),
      'manifest.evolve.tokens[1].slot',
      'evolve_slot_missing',
    );
    expect(problem.message).toContain('sidebar');
  });

  it('scans every html file, not only the entry', () => {
    const other = textFile('pages/report.html', '<div data-evolve="chart"></div>');
    expectValid(validate([page, other], { evolve: { tokens: [token('chart')] } }));
    expectProblem(validate([page], { evolve: { tokens: [token('chart')] } }), 'manifest.evolve.tokens[0].slot', 'evolve_slot_missing');
  });

  it('does not count slots inside comments', () => {
    const commented = textFile('index.html', '<!-- <div data-evolve="old"></div> -->');
    expectProblem(validate([commented], { evolve: { tokens: [token('old')] } }), 'manifest.evolve.tokens[0].slot', 'evolve_slot_missing');
  });
});
