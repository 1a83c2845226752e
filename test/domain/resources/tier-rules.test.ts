import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../../domain/errors.ts';
import type { ResourceKind, ResourceRecord, Tier } from '../../../domain/resources/kind.ts';
import { RESOURCE_KINDS } from '../../../domain/resources/registry.ts';
import { assertTierAllowed } from '../../../domain/resources/tier-rules.ts';

// Rules 3 and 5 of resource access: which tiers a kind supports and the resource's floor.

const resource = (floor: Tier, kind = 'thing'): ResourceRecord => ({
  rid: `ri.test.svc.${kind}.1`,
  kind,
  title: 'A thing',
  companyId: 'org_1',
  cellId: 'cell-one',
  createdBy: null,
  floor,
  parent: null,
});
/** A kind without an anonymous read entry (as agents and ontologies will be). */
const closedKind: ResourceKind = {
  name: 'thing',
  prefix: 'ri.test.svc.thing.',
  anonymousRead: false,
  find: async () => undefined,
  listOf: async () => [],
};
const codeOf = (fn: () => void) => {
  try {
    fn();
    return 'allowed';
  } catch (err) {
    return (err as DomainError).code;
  }
};

describe('assertTierAllowed', () => {
  it('refuses the internet tier with 422 on kinds without an anonymous read entry', () => {
    expect(codeOf(() => assertTierAllowed(closedKind, resource('private'), 'internet'))).toBe('tier_unsupported');
    expect(codeOf(() => assertTierAllowed(closedKind, resource('private'), 'public'))).toBe('allowed');
  });

  it('allows it on every registered kind that has one', () => {
    for (const kind of RESOURCE_KINDS.filter((k) => k.anonymousRead)) {
      expect(codeOf(() => assertTierAllowed(kind, resource('private', kind.name), 'internet'))).toBe('allowed');
    }
  });

  it('refuses tiers narrower than the floor with a conflict, and allows the floor and wider', () => {
    const tiers: Tier[] = ['private', 'group', 'public', 'internet'];
    const open: ResourceKind = { ...closedKind, anonymousRead: true };
    expect(tiers.map((t) => codeOf(() => assertTierAllowed(open, resource('group'), t)))).toEqual([
      'conflict',
      'allowed',
      'allowed',
      'allowed',
    ]);
    expect(tiers.map((t) => codeOf(() => assertTierAllowed(open, resource('public'), t)))).toEqual([
      'conflict',
      'conflict',
      'allowed',
      'allowed',
    ]);
  });
});
