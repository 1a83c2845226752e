// Evolve tokens tune CSS variables inside a page region. A token whose slot no page declares
// (data-evolve="name") and no manifest slot lists as an alias would tune nothing: rejected.
import type { Evolve } from '../manifest/evolve.ts';
import { formatPath, type Problem, problem } from '../problems.ts';
import type { FileAnalysis } from './analyze.ts';

function scannedSlots(analyses: readonly FileAnalysis[]): Set<string> {
  return new Set(analyses.flatMap((analysis) => analysis.slots));
}

export function checkEvolveSlots(evolve: Evolve | undefined, analyses: readonly FileAnalysis[]): Problem[] {
  if (evolve === undefined) return [];
  const known = scannedSlots(analyses);
  for (const slot of evolve.slots) for (const alias of slot.aliases) known.add(alias);
  return evolve.tokens.flatMap((token, index) =>
    known.has(token.slot)
      ? []
      : [
          problem(
            formatPath('manifest', ['evolve', 'tokens', index, 'slot']),
            'evolve_slot_missing',
            `token ${token.name} tunes slot "${token.slot}", but no page has data-evolve="${token.slot}" and no evolve slot declares it as an alias`,
          ),
        ],
  );
}
