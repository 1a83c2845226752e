import { z } from 'zod';
import { AccountId, CellId } from './identity.ts';

// Group contracts (spec G, Admin; shapes after Foundry's Admin API): a group belongs to one
// company; its members are accounts, each with an optional expiration.

export const GroupId = z.string().regex(/^grp_[0-9A-Za-z]{10,40}$/, 'must be a group id (grp_…)');
export const GroupName = z.string().trim().min(1).max(120);

export const MembershipExpirationPolicy = z
  .strictObject({
    maximumDurationDays: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .meta({ description: 'Every membership ends at most this many days after it is added.' }),
  })
  .meta({ id: 'GroupMembershipExpirationPolicy' });

export const GroupView = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    organization: z.string().meta({ description: 'The company the group belongs to (its cellId).' }),
    membershipExpirationPolicy: MembershipExpirationPolicy.nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Group' });
export type GroupView = z.input<typeof GroupView>;

export const CreateGroupInput = z.strictObject({
  organization: CellId.optional().meta({ description: 'The company; defaults to the key’s company.' }),
  name: GroupName,
  description: z.string().max(1000).default(''),
  membershipExpirationPolicy: MembershipExpirationPolicy.nullable().default(null),
});
export type CreateGroupInput = z.output<typeof CreateGroupInput>;

export const GroupMemberView = z
  .object({
    principalId: z.string(),
    principalType: z.literal('USER'),
    username: z.string(),
    expiration: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the membership ends (null: never); an ended one is no longer listed.' }),
  })
  .meta({ id: 'GroupMember' });
export type GroupMemberView = z.input<typeof GroupMemberView>;

export const AddGroupMembersInput = z.strictObject({
  principalIds: z.array(AccountId).min(1).max(1000),
  expiration: z.iso.datetime({ offset: true }).optional().meta({ description: 'When these memberships end; must be in the future.' }),
});
export type AddGroupMembersInput = z.output<typeof AddGroupMembersInput>;

export const RemoveGroupMembersInput = z.strictObject({ principalIds: z.array(AccountId).min(1).max(1000) });
export type RemoveGroupMembersInput = z.output<typeof RemoveGroupMembersInput>;
