// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { addMarkingRoleAssignments, removeMarkingRoleAssignments } from './change-marking-role-assignments.ts';
export { clearanceOf } from './clearance.ts';
export { createMarking } from './create-marking.ts';
export { createMarkingCategory } from './create-marking-category.ts';
export { getMarking } from './get-marking.ts';
export { getMarkingCategory } from './get-marking-category.ts';
export { listMarkingCategories } from './list-marking-categories.ts';
export { listMarkingRoleAssignments } from './list-marking-role-assignments.ts';
export { listMarkings } from './list-markings.ts';
export { markingNotFound, markingRolesOf, markingRows, markingsOnResources } from './repository.ts';
export { withdrawAccountRoles } from './withdraw-account-roles.ts';
