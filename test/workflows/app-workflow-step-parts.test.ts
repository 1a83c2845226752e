import { describe, expect, it } from 'vitest';
import type { WorkflowStep } from '../../schemas/manifest/index.ts';
import { stepGroups, stepParts } from '../../workflows/app-workflows/run.ts';

// Which steps of a run go together into one local activity (issue 37): consecutive unlaned `use`
// and `compute` steps; laned, model and notify steps keep their own.

const step = (id: string, kind: string, lane?: string) => ({ id, kind, ...(lane ? { lane } : {}) }) as unknown as WorkflowStep;
const ids = (parts: ReturnType<typeof stepParts>) =>
  parts.map((p) => ('batch' in p ? { batch: p.batch.map((s) => s.id) } : { lanes: p.lanes.map((l) => l.map((s) => s.id)) }));

describe('stepParts', () => {
  it('batches consecutive unlaned use and compute steps, and nothing across a model step or lanes', () => {
    const steps = [
      step('a', 'use'),
      step('b', 'compute'),
      step('m', 'model'),
      step('c', 'compute'),
      step('x', 'use', 'one'),
      step('y', 'compute', 'two'),
      step('d', 'compute'),
      step('e', 'use'),
      step('n', 'notify'),
    ];
    expect(ids(stepParts(stepGroups(steps)))).toEqual([
      { batch: ['a', 'b'] },
      { lanes: [['m']] },
      { batch: ['c'] },
      { lanes: [['x'], ['y']] },
      { batch: ['d', 'e'] },
      { lanes: [['n']] },
    ]);
  });

  it('keeps every step, in order', () => {
    const steps = [step('a', 'model'), step('b', 'use', 'l'), step('c', 'use', 'l'), step('d', 'compute')];
    const flat = stepParts(stepGroups(steps)).flatMap((p) => ('batch' in p ? p.batch : p.lanes.flat()));
    expect(flat.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
  });
});
