import { z } from 'zod';
import { CellId } from './identity.ts';

// Marking contracts (spec G, Admin; shapes after Foundry's Admin API): a category belongs to one
// company; its markings carry role assignments (ADMINISTER, DECLASSIFY, USE) to accounts and groups.

export const MarkingCategoryId = z.string().regex(/^mkc_[0-9A-Za-z]{10,40}$/, 'must be a marking category id (mkc_…)');
export const MarkingId = z.string().regex(/^mkg_[0-9A-Za-z]{10,40}$/, 'must be a marking id (mkg_…)');
const Name = z.string().trim().min(1).max(120);
const Description = z.string().max(1000).default('');

export const CategoryType = z.enum(['CONJUNCTIVE', 'DISJUNCTIVE']).meta({
  description: 'CONJUNCTIVE: a principal needs every marking of the category on a resource; DISJUNCTIVE: any one of them.',
});
export const MarkingType = z.enum(['MANDATORY', 'CBAC']);
export const MarkingRoleName = z.enum(['ADMINISTER', 'DECLASSIFY', 'USE']).meta({
  description:
    'ADMINISTER manages the marking’s role assignments; DECLASSIFY removes it from resources; USE applies it. Each includes those ' +
    'after it, and any of them clears its holder to see what the marking protects.',
});

export const MarkingCategoryView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    organization: z.string().meta({ description: 'The company the category belongs to (its cellId).' }),
    categoryType: CategoryType,
    markingType: MarkingType,
    markings: z.array(z.string()).meta({ description: 'The ids of its markings, by name.' }),
    createdBy: z.string().nullable(),
    createdTime: z.iso.datetime(),
  })
  .meta({ id: 'MarkingCategory' });
export type MarkingCategoryView = z.input<typeof MarkingCategoryView>;

export const CreateMarkingCategoryInput = z.strictObject({
  organization: CellId.optional().meta({ description: 'The company; defaults to the key’s company.' }),
  name: Name,
  description: Description,
  categoryType: CategoryType,
  markingType: MarkingType.default('MANDATORY'),
});
export type CreateMarkingCategoryInput = z.output<typeof CreateMarkingCategoryInput>;

export const MarkingRoleAssignment = z
  .strictObject({
    principalType: z.enum(['USER', 'GROUP']),
    principalId: z.string().regex(/^(acc|grp)_[0-9A-Za-z]{10,40}$/, 'must be an account id (acc_…) or a group id (grp_…)'),
    role: MarkingRoleName,
  })
  .meta({ id: 'MarkingRoleAssignment' });
export type MarkingRoleAssignment = z.output<typeof MarkingRoleAssignment>;

export const MarkingView = z
  .object({
    id: z.string(),
    categoryId: z.string(),
    name: z.string(),
    description: z.string(),
    organization: z.string(),
    createdBy: z.string().nullable(),
    createdTime: z.iso.datetime(),
  })
  .meta({ id: 'Marking' });
export type MarkingView = z.input<typeof MarkingView>;

const Assignments = z.array(MarkingRoleAssignment).min(1).max(1000);

export const CreateMarkingInput = z.strictObject({
  categoryId: MarkingCategoryId,
  name: Name,
  description: Description,
  initialRoleAssignments: Assignments.meta({ description: 'At least one ADMINISTER.' }),
});
export type CreateMarkingInput = z.output<typeof CreateMarkingInput>;

export const ChangeMarkingRolesInput = z.strictObject({ roleAssignments: Assignments });
export type ChangeMarkingRolesInput = z.output<typeof ChangeMarkingRolesInput>;

export const ResourceMarkingsInput = z.strictObject({ markingIds: z.array(MarkingId).min(1).max(100) });
export type ResourceMarkingsInput = z.output<typeof ResourceMarkingsInput>;

export const ResourceMarkingView = z
  .object({
    markingId: z.string(),
    name: z.string(),
    categoryId: z.string(),
    categoryType: CategoryType,
    inheritedFrom: z.string().nullable().meta({ description: 'The resource it is inherited from (an object type’s ontology).' }),
  })
  .meta({ id: 'ResourceMarking' });
export type ResourceMarkingView = z.input<typeof ResourceMarkingView>;
