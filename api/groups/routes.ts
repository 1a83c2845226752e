import { z } from 'zod';
import {
  addGroupMembers,
  createGroup,
  deleteGroup,
  getGroup,
  listGroupMembers,
  listGroups,
  removeGroupMembers,
} from '../../domain/groups/index.ts';
import {
  AddGroupMembersInput,
  CreateGroupInput,
  GroupId,
  GroupMemberView,
  GroupView,
  RemoveGroupMembersInput,
} from '../../schemas/groups.ts';
import { CellId } from '../../schemas/identity.ts';
import { defineRoute } from '../http/route.ts';

// Groups (spec G, Admin; Foundry's Admin API shapes): a company's admins and developers manage its
// groups by key, operators those of every company. A group of a company the caller does not
// manage answers group_not_found, as if it did not exist.
const ERRORS = ['unauthorized', 'forbidden'] as const;
const GroupParams = z.object({ groupId: GroupId });
const PageSize = z.coerce.number().int().min(1).max(1000).default(100);
const PageToken = z.string().max(300).optional().meta({ description: 'Continue after the previous page (its `nextPageToken`).' });

export const createGroupRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/groups',
  operationId: 'adminCreateGroup',
  summary: 'Create a group of a company (its admins and developers; operators for any company)',
  description:
    'Names are unique per company whatever their case (group_name_exists). `membershipExpirationPolicy.maximumDurationDays` ' +
    'caps every membership added to the group; recorded in the security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  body: CreateGroupInput,
  response: { status: 201, description: 'The new group.', schema: GroupView },
  errors: [...ERRORS, 'invalid_payload', 'organization_not_found', 'group_name_exists'],
  handler: async ({ db, principal, body, ip }) => ({ data: await createGroup(db, principal, body, ip) }),
});

export const listGroupsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/groups',
  operationId: 'adminListGroups',
  summary: 'A company’s groups by name, optionally those whose name starts with `q`',
  tags: ['admin'],
  auth: 'credential',
  query: z.strictObject({
    organization: CellId.optional().meta({ description: 'The company; defaults to the key’s company.' }),
    q: z.string().max(120).optional().meta({ description: 'Name prefix (case-insensitive).' }),
    pageSize: PageSize,
    pageToken: PageToken,
  }),
  response: {
    status: 200,
    description: 'One page of groups.',
    schema: z.object({ data: z.array(GroupView), nextPageToken: z.string().nullable() }),
  },
  errors: [...ERRORS, 'invalid_payload', 'organization_not_found'],
  handler: async ({ db, principal, query }) => ({
    data: await listGroups(db, principal, {
      organization: query.organization,
      prefix: query.q,
      pageSize: query.pageSize,
      pageToken: query.pageToken,
    }),
  }),
});

export const getGroupRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/groups/{groupId}',
  operationId: 'adminGetGroup',
  summary: 'One group',
  tags: ['admin'],
  auth: 'credential',
  params: GroupParams,
  response: { status: 200, description: 'The group.', schema: GroupView },
  errors: [...ERRORS, 'invalid_path', 'group_not_found'],
  handler: async ({ db, principal, params }) => ({ data: await getGroup(db, principal, params.groupId) }),
});

export const deleteGroupRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/admin/groups/{groupId}',
  operationId: 'adminDeleteGroup',
  summary:
    'Delete a group: its memberships, shares, resource grants and marking roles end at once (not while it is a marking’s last ADMINISTER)',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: GroupParams,
  response: { status: 200, description: 'Deleted.', schema: z.object({ deleted: z.literal(true) }) },
  errors: [...ERRORS, 'invalid_path', 'group_not_found', 'last_admin_protected'],
  handler: async ({ db, principal, params, ip }) => ({ data: await deleteGroup(db, principal, params.groupId, ip) }),
});

export const listGroupMembersRoute = defineRoute({
  method: 'get',
  path: '/api/v1/admin/groups/{groupId}/groupMembers',
  operationId: 'adminListGroupMembers',
  summary: 'A group’s members with their expiration (ended memberships are not listed)',
  tags: ['admin'],
  auth: 'credential',
  params: GroupParams,
  query: z.strictObject({ pageSize: PageSize, pageToken: PageToken }),
  response: {
    status: 200,
    description: 'One page of members, by account id.',
    schema: z.object({ data: z.array(GroupMemberView), nextPageToken: z.string().nullable() }),
  },
  errors: [...ERRORS, 'invalid_path', 'invalid_payload', 'group_not_found'],
  handler: async ({ db, deps, principal, params, query }) => ({
    data: await listGroupMembers(db, deps.clock, principal, params.groupId, query),
  }),
});

export const addGroupMembersRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/groups/{groupId}/groupMembers/add',
  operationId: 'adminAddGroupMembers',
  summary: 'Add accounts to a group, optionally until an expiration (adding one again sets its expiration)',
  description:
    'An expiration in the past, or beyond the group’s membership expiration policy, is refused ' +
    '(invalid_group_membership_expiration); without one, the policy’s maximum applies. Each addition is recorded in the ' +
    'security event log.',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: GroupParams,
  body: AddGroupMembersInput,
  response: { status: 200, description: 'The added members.', schema: z.object({ data: z.array(GroupMemberView) }) },
  errors: [...ERRORS, 'invalid_path', 'invalid_payload', 'group_not_found', 'principal_not_found', 'invalid_group_membership_expiration'],
  handler: async ({ db, deps, principal, params, body, ip }) => ({
    data: await addGroupMembers(db, deps.clock, principal, params.groupId, body, ip),
  }),
});

export const removeGroupMembersRoute = defineRoute({
  method: 'post',
  path: '/api/v1/admin/groups/{groupId}/groupMembers/remove',
  operationId: 'adminRemoveGroupMembers',
  summary: 'Remove accounts from a group (idempotent); their access through it ends at once',
  tags: ['admin'],
  auth: 'credential',
  write: true,
  params: GroupParams,
  body: RemoveGroupMembersInput,
  response: { status: 200, description: 'The accounts removed.', schema: z.object({ removed: z.array(z.string()) }) },
  errors: [...ERRORS, 'invalid_path', 'invalid_payload', 'group_not_found'],
  handler: async ({ db, principal, params, body, ip }) => ({ data: await removeGroupMembers(db, principal, params.groupId, body, ip) }),
});

export const groupRoutes = [
  createGroupRoute,
  listGroupsRoute,
  getGroupRoute,
  deleteGroupRoute,
  listGroupMembersRoute,
  addGroupMembersRoute,
  removeGroupMembersRoute,
];
