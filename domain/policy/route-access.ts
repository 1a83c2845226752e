// Who may call each route of the OpenAPI document, one entry per operationId: the table the route ×
// principal matrix test (test/api/access-matrix.test.ts) checks every operation against. This
// version is read off the routes' declarations (`auth` of each `defineRoute`): `role: 'developer'`
// admits developer credentials of every kind, agent keys act as members, app tokens at member level
// at most and never renew a ticket. Three rules the use cases add are written in too: a read-only
// agent key runs no action, proposals are decided from a web session only, and a route naming an
// app (in its path, query or body) admits a ticket of that app only.

export type CallerKind =
  | 'anonymous'
  | 'member-key'
  | 'developer-key'
  | 'agent-key'
  | 'agent-key-restricted'
  | 'operator-key'
  | 'developer-session'
  | 'member-session'
  | 'developer-ticket'
  | 'member-ticket'
  | 'editor-ticket'
  | 'viewer-ticket'
  | 'member-app-token'
  | 'viewer-app-token';

export interface RouteAccess {
  /** Caller kinds the route admits at all; anything else is refused with 401/403 before validation. */
  admits: readonly CallerKind[];
  /** What a caller of another company (keys, sessions) or of another app (tickets, tokens) gets:
   * 'none' = the route is not scoped to a company/app; 'company' = refused unless the target belongs
   * to the caller's company; 'app' = tickets/tokens refused unless the path's app is theirs, keys as 'company'. */
  scope: 'none' | 'company' | 'app';
}

const KEYS = ['member-key', 'developer-key', 'agent-key', 'agent-key-restricted', 'operator-key'] as const;
/** Keys acting with a developer license: a company developer's, or platform staff's (a developer of the platform company). */
const DEVELOPER_KEYS = ['developer-key', 'operator-key'] as const;
const OPERATOR_KEY = ['operator-key'] as const;
/** Keys that may run actions: a read-only agent key runs none (domain/ontology/data-access.ts). */
const WRITING_KEYS = ['member-key', 'developer-key', 'agent-key-restricted', 'operator-key'] as const;
const SESSIONS = ['developer-session', 'member-session'] as const;
const DEVELOPER_SESSION = ['developer-session'] as const;
const TICKETS = ['developer-ticket', 'member-ticket', 'editor-ticket', 'viewer-ticket'] as const;
const DEVELOPER_TICKET = ['developer-ticket'] as const;
const APP_TOKENS = ['member-app-token', 'viewer-app-token'] as const;
/** Routes that need no credential: whatever is sent is not looked at. */
const ANYONE = ['anonymous', ...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS] as const;

/** One entry per operationId of the OpenAPI document. */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  getHealth: { admits: ANYONE, scope: 'none' },
  getOpenApiDocument: { admits: ANYONE, scope: 'none' },
  createPasswordToken: { admits: ANYONE, scope: 'none' },
  getMe: { admits: KEYS, scope: 'none' },
  listKeys: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  revokeKey: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  issueAgentKey: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  listAgentKeys: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  revokeAgentKey: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  createDeviceCode: { admits: ANYONE, scope: 'none' },
  pollDeviceToken: { admits: ANYONE, scope: 'none' },
  webLookupUserCode: { admits: SESSIONS, scope: 'none' },
  decideDeviceCode: { admits: SESSIONS, scope: 'none' },
  webSignIn: { admits: ANYONE, scope: 'none' },
  webChangePassword: { admits: ANYONE, scope: 'none' },
  webCurrentSession: { admits: SESSIONS, scope: 'none' },
  webSignOut: { admits: SESSIONS, scope: 'none' },
  adminCreateOrganization: { admits: OPERATOR_KEY, scope: 'none' },
  adminGetOrganization: { admits: OPERATOR_KEY, scope: 'none' },
  adminCreateUser: { admits: OPERATOR_KEY, scope: 'none' },
  adminListUsers: { admits: OPERATOR_KEY, scope: 'none' },
  adminUpdateUser: { admits: OPERATOR_KEY, scope: 'none' },
  adminPutLicense: { admits: OPERATOR_KEY, scope: 'none' },
  adminDeleteLicense: { admits: OPERATOR_KEY, scope: 'none' },
  adminListUserKeys: { admits: OPERATOR_KEY, scope: 'none' },
  adminRevokeUserKeys: { admits: OPERATOR_KEY, scope: 'none' },
  adminListSecurityEvents: { admits: OPERATOR_KEY, scope: 'none' },
  listApps: { admits: KEYS, scope: 'none' },
  getRegistry: { admits: KEYS, scope: 'none' },
  getApp: { admits: KEYS, scope: 'app' },
  findStoredFiles: { admits: DEVELOPER_KEYS, scope: 'app' },
  uploadAppVersion: { admits: DEVELOPER_KEYS, scope: 'app' },
  promoteAppVersion: { admits: DEVELOPER_KEYS, scope: 'app' },
  getManifestSchema: { admits: ANYONE, scope: 'none' },
  listAppApis: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  getAppAbout: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  getAppCard: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  callAppMcp: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  getOAuthAuthorizationServer: { admits: ANYONE, scope: 'none' },
  getMcpProtectedResource: { admits: ANYONE, scope: 'none' },
  registerOAuthClient: { admits: ANYONE, scope: 'none' },
  issueOAuthToken: { admits: ANYONE, scope: 'none' },
  revokeOAuthToken: { admits: ANYONE, scope: 'none' },
  describeOAuthAuthorization: { admits: SESSIONS, scope: 'none' },
  decideOAuthAuthorization: { admits: SESSIONS, scope: 'none' },
  renewAppTicket: { admits: TICKETS, scope: 'app' },
  controlPlaneInitializeCompany: { admits: OPERATOR_KEY, scope: 'none' },
  controlPlaneCloudInstance: { admits: OPERATOR_KEY, scope: 'none' },
  controlPlaneFolders: { admits: OPERATOR_KEY, scope: 'none' },
  controlPlaneAgentProfiles: { admits: OPERATOR_KEY, scope: 'none' },
  controlPlaneProvisioningStatus: { admits: OPERATOR_KEY, scope: 'none' },
  getAuthMe: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'none' },
  listShares: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  createShare: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  revokeShare: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  listMembers: { admits: DEVELOPER_KEYS, scope: 'none' },
  importMembers: { admits: DEVELOPER_KEYS, scope: 'none' },
  reissueMemberInvitation: { admits: DEVELOPER_KEYS, scope: 'company' },
  adminSetSeatLimit: { admits: OPERATOR_KEY, scope: 'none' },
  webAcceptInvitation: { admits: ANYONE, scope: 'none' },
  listResources: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  getResource: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  listResourceRoles: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  addResourceRole: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  removeResourceRole: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  setResourceTier: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  createResourceLink: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  revokeResourceLink: { admits: [...KEYS, ...SESSIONS], scope: 'company' },
  redeemResourceLink: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  searchPrincipals: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  recordLogEvents: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  listLogEvents: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  setFeedbackStatus: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  getLogSummary: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  getAppUsage: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  getBillingPrices: { admits: ANYONE, scope: 'none' },
  estimateBillingCost: { admits: KEYS, scope: 'none' },
  getBillingSummary: { admits: DEVELOPER_KEYS, scope: 'company' },
  listBillingRecords: { admits: DEVELOPER_KEYS, scope: 'company' },
  checkBillingBudget: { admits: DEVELOPER_KEYS, scope: 'company' },
  listSemanticTypes: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  defineSemanticTypes: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  listOntologies: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'none' },
  getOntology: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  listObjectTypes: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getObjectType: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  listOutgoingLinkTypes: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getOutgoingLinkType: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  listObjects: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getObject: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  searchObjects: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  aggregateObjects: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  editObjects: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  importObjects: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  listLinkedObjects: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getLinkedObject: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  loadObjectSet: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  aggregateObjectSet: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  createTemporaryObjectSet: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getObjectSet: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  streamOntologySubscriptions: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  listActionTypes: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  getActionType: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  applyAction: { admits: [...WRITING_KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  applyActionBatch: { admits: [...WRITING_KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  listEditsHistory: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  defineActionTypes: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  createBranch: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  listBranches: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  getBranch: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  createProposal: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  listProposals: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_SESSION], scope: 'company' },
  approveProposal: { admits: DEVELOPER_SESSION, scope: 'company' },
  rejectProposal: { admits: DEVELOPER_SESSION, scope: 'company' },
  mergeProposal: { admits: DEVELOPER_SESSION, scope: 'company' },
  getWorkflowSchema: { admits: ANYONE, scope: 'none' },
  listWorkflowRuns: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  watchWorkflowRuns: { admits: [...DEVELOPER_KEYS, ...DEVELOPER_TICKET], scope: 'app' },
  executeAppApi: { admits: [...KEYS, ...TICKETS, ...APP_TOKENS], scope: 'app' },
  listCapabilities: { admits: DEVELOPER_KEYS, scope: 'company' },
  sendTestNotification: { admits: [...KEYS, ...SESSIONS], scope: 'none' },
  executeOntologySql: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
  describeOntologyDatabase: { admits: [...KEYS, ...SESSIONS, ...TICKETS, ...APP_TOKENS], scope: 'company' },
};
