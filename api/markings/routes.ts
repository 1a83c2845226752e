import { z } from 'zod';
import {
  addMarkingRoleAssignments,
  createMarking,
  createMarkingCategory,
  getMarking,
  getMarkingCategory,
  listMarkingCategories,
  listMarkingRoleAssignments,
  listMarkings,
  removeMarkingRoleAssignments,
} from '../../domain/markings/index.ts';
import { CellId } from '../../schemas/identity.ts';
import {
  ChangeMarkingRolesInput,
  CreateMarkingCategoryInput,
  CreateMarkingInput,
  MarkingCategoryId,
  MarkingCategoryView,
  MarkingId,
  MarkingRoleAssignment,
  MarkingView,
} from '../../schemas/markings.ts';
import { defineRoute } from '../http/route.ts';

// Marking categories and markings (spec G, Admin; Foundry's Admin API shapes). A company's people
// read them by key; its admins and developers (operators: any company) create them; a marking's
// ADMINISTERs (and operators) change its role assignments. Another company's categories and
// markings do not exist for the caller (…_not_found).
const ERRORS = ['unauthorized', 'forbidden'] as const;
const PageSize = z.coerce.number().int().min(1).max(1000).default(100);
const PageToken = z.string().max(300).optional().meta({ description: 'Continue after the previous page (its `nextPageToken`).' });
const Organization = CellId.optional().meta({ description: 'The company; defaults to the key’s company.' });
const CategoryParams = z.object({ categoryId: MarkingCategoryId });
const MarkingParams = z.object({ markingId: MarkingId });
const Assignments = z.object({ data: z.array(MarkingRoleAssignment) });
const page = (what: string, item: z.ZodType) => ({
  status: 200 as const,
  description: `One page of ${what}.`,
  schema: z.object({ data: z.array(item), nextPageToken: z.string().nullable() }),
});

export const createMarkingCategoryRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/markingCategories',
  operationId: 'adminCreateMarkingCategory',
  summary: 'Create a marking category of a company, conjunctive or disjunctive (its admins and developers; operators)',
  description:
    'CONJUNCTIVE: a resource carrying several of the category’s markings is visible only to principals cleared for all of ' +
    'them; DISJUNCTIVE: for any one of them. Names are unique per company (409 conflict). Recorded in the security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  body: CreateMarkingCategoryInput,
  response: { status: 201, description: 'The new category.', schema: MarkingCategoryView },
  errors: [...ERRORS, 'invalid_payload', 'organization_not_found', 'conflict'],
  handler: async ({ db, principal, body, ip }) => ({ data: await createMarkingCategory(db, principal, body, ip) }),
});

export const listMarkingCategoriesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/markingCategories',
  operationId: 'adminListMarkingCategories',
  summary: 'A company’s marking categories by name',
  tags: ['admin'],
  auth: 'credential',
  query: z.strictObject({ organization: Organization, pageSize: PageSize, pageToken: PageToken }),
  response: page('categories', MarkingCategoryView),
  errors: [...ERRORS, 'invalid_payload', 'organization_not_found'],
  handler: async ({ db, principal, query }) => ({ data: await listMarkingCategories(db, principal, query) }),
});

export const getMarkingCategoryRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/markingCategories/{categoryId}',
  operationId: 'adminGetMarkingCategory',
  summary: 'One marking category, with its markings',
  tags: ['admin'],
  auth: 'credential',
  params: CategoryParams,
  response: { status: 200, description: 'The category.', schema: MarkingCategoryView },
  errors: [...ERRORS, 'invalid_path', 'marking_category_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getMarkingCategory(db, principal, params.categoryId) }),
});

export const createMarkingRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/markings',
  operationId: 'adminCreateMarking',
  summary: 'Create a marking in a category, with its initial role assignments (at least one ADMINISTER)',
  description:
    'Names are unique per category whatever their case (marking_name_exists). Role assignments name accounts (USER) or groups ' +
    '(GROUP) of the category’s company. Recorded in the security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  body: CreateMarkingInput,
  response: { status: 201, description: 'The new marking.', schema: MarkingView },
  errors: [...ERRORS, 'invalid_payload', 'marking_category_not_found', 'marking_name_exists', 'principal_not_found'],
  handler: async ({ db, principal, body, ip }) => ({ data: await createMarking(db, principal, body, ip) }),
});

export const listMarkingsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/markings',
  operationId: 'adminListMarkings',
  summary: 'A company’s markings by name, optionally one category’s',
  tags: ['admin'],
  auth: 'credential',
  query: z.strictObject({ organization: Organization, categoryId: MarkingCategoryId.optional(), pageSize: PageSize, pageToken: PageToken }),
  response: page('markings', MarkingView),
  errors: [...ERRORS, 'invalid_payload', 'organization_not_found'],
  handler: async ({ db, principal, query }) => ({ data: await listMarkings(db, principal, query) }),
});

export const getMarkingRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/markings/{markingId}',
  operationId: 'adminGetMarking',
  summary: 'One marking',
  tags: ['admin'],
  auth: 'credential',
  params: MarkingParams,
  response: { status: 200, description: 'The marking.', schema: MarkingView },
  errors: [...ERRORS, 'invalid_path', 'marking_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getMarking(db, principal, params.markingId) }),
});

export const listMarkingRoleAssignmentsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/markings/{markingId}/roleAssignments',
  operationId: 'adminListMarkingRoleAssignments',
  summary: 'A marking’s role assignments',
  tags: ['admin'],
  auth: 'credential',
  params: MarkingParams,
  response: { status: 200, description: 'Every assignment, by principal.', schema: Assignments },
  errors: [...ERRORS, 'invalid_path', 'marking_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await listMarkingRoleAssignments(db, principal, params.markingId) }),
});

export const addMarkingRoleAssignmentsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/markings/{markingId}/roleAssignments/add',
  operationId: 'adminAddMarkingRoleAssignments',
  summary: 'Give accounts or groups a role on a marking (its ADMINISTERs; operators)',
  description:
    'Clearance follows at once, in every process; a group’s role clears its live members only. Recorded in the security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: MarkingParams,
  body: ChangeMarkingRolesInput,
  response: { status: 200, description: 'The marking’s role assignments after the change.', schema: Assignments },
  errors: [...ERRORS, 'invalid_path', 'invalid_payload', 'marking_not_found', 'principal_not_found'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await addMarkingRoleAssignments(db, deps.clock, principal, params.markingId, body, ip),
  }),
});

export const removeMarkingRoleAssignmentsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/markings/{markingId}/roleAssignments/remove',
  operationId: 'adminRemoveMarkingRoleAssignments',
  summary: 'Take roles on a marking away (its ADMINISTERs; operators; idempotent); the last ADMINISTER stays',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: MarkingParams,
  body: ChangeMarkingRolesInput,
  response: { status: 200, description: 'The marking’s role assignments after the change.', schema: Assignments },
  errors: [...ERRORS, 'invalid_path', 'invalid_payload', 'marking_not_found', 'last_admin_protected'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await removeMarkingRoleAssignments(db, deps.clock, principal, params.markingId, body, ip),
  }),
});

export const markingRoutes = [
  createMarkingCategoryRoute,
  listMarkingCategoriesRoute,
  getMarkingCategoryRoute,
  createMarkingRoute,
  listMarkingsRoute,
  getMarkingRoute,
  listMarkingRoleAssignmentsRoute,
  addMarkingRoleAssignmentsRoute,
  removeMarkingRoleAssignmentsRoute,
];
