// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { addGroupMembers } from './add-group-members.ts';
export { createGroup } from './create-group.ts';
export { deleteGroup } from './delete-group.ts';
export { getGroup } from './get-group.ts';
export { listGroupMembers } from './list-group-members.ts';
export { listGroups } from './list-groups.ts';
export { removeGroupMembers } from './remove-group-members.ts';
export { assertGroupOf, companyNamed, companyToManage, membershipsOf } from './repository.ts';
