// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { isInternetTier } from './app-grant.ts';
export { callerRoleOn } from './caller-role.ts';
export { addGrant, removeGrant } from './change-grant.ts';
export { changeResourceMarkings } from './change-resource-markings.ts';
export { clearedForApp } from './cleared-for-app.ts';
export { describeResource } from './describe-resource.ts';
export { appsSharedWith, findAppGrants, liveShare, nextAccessExpiry } from './find-app-grants.ts';
export { forgetResource } from './forget-resource.ts';
export { TIERS } from './kind.ts';
export { agentRid } from './kinds/agent.ts';
export { createLink, LINK_DEFAULT_DAYS, redeemLink, revokeLink } from './links.ts';
export { listResourceMarkings } from './list-resource-markings.ts';
export { listResources } from './list-resources.ts';
export { listRoles } from './list-roles.ts';
export { principalsOf } from './principals.ts';
export { grantsOf } from './repository.ts';
export { searchPrincipals } from './search-principals.ts';
export { setTier } from './set-tier.ts';
