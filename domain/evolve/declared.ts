import type { EvolveChange } from '../../schemas/evolve.ts';
import type { Evolve, Manifest } from '../../schemas/manifest/index.ts';
import { problem } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';

// What a version lets improvements change: the manifest's declared tokens (with their range and
// unit) and slots (names and aliases, each resolved to its slot's name).

type Token = Evolve['tokens'][number];

export interface Declared {
  tokens: Map<string, Token>;
  /** Every slot name and alias → the slot's name (a token's slot counts as declared too). */
  slots: Map<string, string>;
  /** Each slot's name → the names its regions may carry (the name and its aliases). */
  regions: Map<string, string[]>;
  baked: Set<string>;
}

const declaredByManifest = new WeakMap<Manifest, Declared>();

/** The declared parts of a version (computed once per loaded manifest: versions never change). */
export function declaredOf(manifest: Manifest): Declared {
  let declared = declaredByManifest.get(manifest);
  if (declared) return declared;
  const evolve = manifest.evolve;
  const slots = new Map<string, string>();
  const regions = new Map<string, string[]>();
  for (const slot of evolve?.slots ?? []) {
    regions.set(slot.name, [slot.name, ...slot.aliases]);
    for (const n of [slot.name, ...slot.aliases]) slots.set(n, slot.name);
  }
  for (const token of evolve?.tokens ?? []) {
    if (!slots.has(token.slot)) {
      slots.set(token.slot, token.slot);
      regions.set(token.slot, [token.slot]);
    }
  }
  declared = {
    tokens: new Map((evolve?.tokens ?? []).map((t) => [t.name, t])),
    slots,
    regions,
    baked: new Set(evolve?.baked ?? []),
  };
  declaredByManifest.set(manifest, declared);
  return declared;
}

/**
 * Refuses (400 invalid_payload, each problem with its path) a change the version does not
 * declare: an unknown token, a value outside the token's [min, max], an unknown slot.
 */
export function assertDeclared(manifest: Manifest, changes: readonly EvolveChange[]): void {
  const declared = declaredOf(manifest);
  const problems = changes.flatMap((change, i) => {
    if (change.kind === 'slot') {
      return declared.slots.has(change.slot)
        ? []
        : [problem(`changes.${i}.slot`, 'undeclared', `slot "${change.slot}" is not declared in the manifest's evolve.slots`)];
    }
    const token = declared.tokens.get(change.token);
    if (!token) return [problem(`changes.${i}.token`, 'undeclared', `token ${change.token} is not declared in evolve.tokens`)];
    return change.value < token.min || change.value > token.max
      ? [problem(`changes.${i}.value`, 'out_of_range', `${change.token} must lie within [${token.min}, ${token.max}]`)]
      : [];
  });
  if (problems.length) {
    throw new DomainError('invalid_payload', 'A proposal changes only declared tokens (within their range) and slots.', {
      details: { problems },
    });
  }
}
