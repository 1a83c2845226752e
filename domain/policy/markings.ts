import type { CategoryType, MarkingRole } from '../db/index.ts';

// Markings (spec G): mandatory controls on top of roles. A marked resource (and, inherited, every
// object type of a marked ontology) exists only for principals who satisfy its markings: all of a
// conjunctive category's markings on it, at least one of a disjunctive category's. Nobody bypasses
// them, developers and platform staff included: they are the rule a role cannot override.

/** One marking on a resource, with its category's kind (what "satisfy" means for it). */
export interface RequiredMarking {
  markingId: string;
  categoryId: string;
  categoryType: CategoryType;
}

/**
 * A role on a marking an account holds: directly, or through a group (`expiresAt`: when that
 * membership ends, null: never). Judged at each check, so an expired membership clears nothing.
 */
export type MarkingAssignment =
  | { markingId: string; role: MarkingRole; via: 'account' }
  | { markingId: string; role: MarkingRole; via: 'group'; expiresAt: Date | null };

/** A principal's clearance: its live role on each marking it holds one on (the highest, see MARKING_ROLES). */
export type MarkingClearance = ReadonlyMap<string, MarkingRole>;

export const NO_CLEARANCE: MarkingClearance = new Map();

/** Each role includes those after it: an administrator may declassify and use, a declassifier use. */
export const MARKING_ROLES = ['administer', 'declassify', 'use'] as const satisfies readonly MarkingRole[];
const rank = (role: MarkingRole) => MARKING_ROLES.length - MARKING_ROLES.indexOf(role);

/** Whether `held` includes `needed` (administer ⊇ declassify ⊇ use). */
export const markingRoleIncludes = (held: MarkingRole | null | undefined, needed: MarkingRole) =>
  held !== null && held !== undefined && rank(held) >= rank(needed);

/** The clearance an account's assignments give at `now`: group ones only while the membership is live. */
export function clearanceAt(assignments: readonly MarkingAssignment[], now: Date): MarkingClearance {
  const out = new Map<string, MarkingRole>();
  for (const a of assignments) {
    if (a.via === 'group' && a.expiresAt !== null && a.expiresAt.getTime() <= now.getTime()) continue;
    if (!markingRoleIncludes(out.get(a.markingId), a.role)) out.set(a.markingId, a.role);
  }
  return out;
}

/**
 * The marking rule: any role on a marking clears its holder for it (a role on a marking is
 * membership of it); a conjunctive category asks for every one of its markings on the resource,
 * a disjunctive category for one of them. No markings: satisfied.
 */
export function satisfiesMarkings(clearance: MarkingClearance, required: readonly RequiredMarking[]): boolean {
  const disjunctive = new Map<string, boolean>();
  for (const m of required) {
    const cleared = clearance.has(m.markingId);
    if (m.categoryType === 'conjunctive') {
      if (!cleared) return false;
    } else {
      disjunctive.set(m.categoryId, (disjunctive.get(m.categoryId) ?? false) || cleared);
    }
  }
  for (const ok of disjunctive.values()) if (!ok) return false;
  return true;
}
