// The access policy's public face: other capabilities import from here only.
export {
  type AccessRefusal,
  type AccessTarget,
  type AnonymousAccess,
  type AppAccess,
  type AppRole,
  anonymousAppAccess,
  appRoleOf,
  lowerRole,
  NO_SHARES,
  permissionsOf,
  type ResourceGrant,
  type ShareGrants,
  type Visitor,
} from './app-access.ts';
export {
  type AccountSubject,
  type Action,
  type Actions,
  type AppSubject,
  authorize,
  authorizeKey,
  type CompanySubject,
  can,
  type ResourceSubject,
} from './authorize.ts';
export { type CallerKind, callerKindOf, credentialTypesOf, PAGE_ACCESS, ROUTE_ACCESS, type RouteAccess } from './route-access.ts';
export {
  agentMayWrite,
  agentRestrictionsOf,
  isAgentKey,
  isAppToken,
  isDataDeveloperOf,
  isDeveloperOf,
  isMemberOf,
  keyNamespaces,
  mayWriteAs,
  PUBLIC_NAMESPACE,
  resourceRoleOf,
  ticketAdmits,
  tokenRole,
} from './rules.ts';
