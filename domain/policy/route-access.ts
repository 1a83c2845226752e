import type { Principal } from '../principal.ts';
import { isAgentKey, isAppToken } from './rules.ts';

// THE route table: which kinds of caller each operation admits at all, and how it is scoped.
// Authentication (api/auth/authenticate.ts) consults it by the route's operationId before
// validation; finer decisions (this company, this app's role, restricted apps, agent
// restrictions, resource roles) are `authorize` calls inside the use cases. A route × principal
// matrix test derives its expected answers from this table.
//
// Caller kinds (one per credential, see `callerKindOf`):
// - anonymous: no credential.
// - member-key / developer-key: an account key at its live role in its company (a developer key
//   sent with `x-author: agent:<id>` is still a developer key, an agent author).
// - agent-key: an agent key with the default, read-only restrictions (api:use-ontologies-read only);
//   agent-key-restricted: an agent key issued with api:use-ontologies-write (its listed action types).
//   Both read only their listed object types; neither is ever an Owner or a sharer.
// - operator-key: a key of a platform-staff account (also a developer key of its own company).
// - developer-session: a web session of an account with a developer license somewhere (or platform
//   staff); member-session: any other web session (a member, or a person with no company at all).
// - <role>-ticket: an app ticket, by the visitor's role in its app when it was issued.
// - member-app-token / viewer-app-token: an OAuth app token, by the person's role in the app today
//   (never above member; an editor's token counts as member-app-token: editors may what members may).
//   Its audience is its own app's MCP endpoint (RFC 8707): authentication refuses it anywhere else
//   with 401 invalid_token before this table is consulted, so only callAppMcp admits app tokens.
//
// Refusals at the door, before validation: no credential (or an unknown one) 401; a credential of a
// type the route does not read (a session on a key-only route) 401; a key, ticket or token of a kind
// the route does not admit 403, with an explanation.

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
  /**
   * Kinds the door lets through but the use case always refuses, through the policy's `authorize`
   * (403, or 404 where the target is hidden from them), for the action the route is named for: the door cannot tell (an export is a
   * read a viewer may call, the workflow `run` is not; an invisible ontology must stay 404).
   * Intended access: denied.
   */
  deniedInside?: readonly CallerKind[];
}

const ANONYMOUS = ['anonymous'] as const satisfies readonly CallerKind[];
/** People's keys: members, developers, operators (never agent keys). */
const KEYS = ['member-key', 'developer-key', 'operator-key'] as const satisfies readonly CallerKind[];
const DEVELOPER_KEYS = ['developer-key', 'operator-key'] as const satisfies readonly CallerKind[];
const AGENT_KEYS = ['agent-key', 'agent-key-restricted'] as const satisfies readonly CallerKind[];
const OPERATOR = ['operator-key'] as const satisfies readonly CallerKind[];
const SESSIONS = ['member-session', 'developer-session'] as const satisfies readonly CallerKind[];
const DEVELOPER_SESSION = ['developer-session'] as const satisfies readonly CallerKind[];
const TICKETS = ['developer-ticket', 'member-ticket', 'editor-ticket', 'viewer-ticket'] as const satisfies readonly CallerKind[];
const WRITING_TICKETS = ['developer-ticket', 'member-ticket', 'editor-ticket'] as const satisfies readonly CallerKind[];
const APP_TOKENS = ['member-app-token', 'viewer-app-token'] as const satisfies readonly CallerKind[];

const route = (scope: RouteAccess['scope'], ...kinds: (readonly CallerKind[])[]): RouteAccess => ({ admits: kinds.flat(), scope });

const PUBLIC = route('none', ANONYMOUS);
/** The company's developers, by key or on the web. */
const DEVELOPERS = route('company', DEVELOPER_KEYS, DEVELOPER_SESSION);
/** The app's surface: the company's keys, the app's tickets (whose role decides inside). */
const APP_SURFACE = route('app', KEYS, TICKETS);
/** The data layer: everyone who may have a role in some app of the company; what they read is DataAccess. */
const DATA = route('company', KEYS, SESSIONS, TICKETS, AGENT_KEYS);
/** Applying actions: not the read-only credentials (viewers, read-only agent keys). */
const DATA_WRITE = route('company', KEYS, SESSIONS, WRITING_TICKETS, ['agent-key-restricted']);
const OPERATORS = route('none', OPERATOR);
/** A company's people and groups: its admins and developers (developer keys), operators for every company. */
const PEOPLE = route('none', DEVELOPER_KEYS);
/** Markings: people's keys (a member reads the markings of its company and may hold roles on them). */
const MARKINGS = route('none', KEYS);
/** The resource access model: signed-in people (keys and sessions); never tickets, never agent keys. */
const RESOURCES = route('none', KEYS, SESSIONS);

/**
 * Cameras (spec Authentication 8): the company's developers and members by key or web session and
 * their app tickets; the tickets of people reached through shares pass the door and are refused
 * inside (camera.read), as is a ticket asking for a camera its manifest does not list (404).
 */
const CAMERAS = { ...route('company', KEYS, SESSIONS, TICKETS), deniedInside: ['editor-ticket', 'viewer-ticket'] } satisfies RouteAccess;
/**
 * Upload sessions into a media property: the company's developers, restricted agent keys for the
 * types they list, and the apps' tickets for sessions that name no object (ontology.upload-media
 * decides inside); member sessions and viewers' tickets pass so an ontology they cannot read stays
 * 404 and a viewer hears why (403).
 */
const MEDIA_UPLOADS: RouteAccess = {
  ...route('company', DEVELOPER_KEYS, SESSIONS, TICKETS, ['agent-key-restricted']),
  deniedInside: ['member-session', 'viewer-ticket'],
};
/** A module's writes: the role on it decides inside; the company's members are Viewers of a module open to the company (the default). */
const MODULE_OWNERS_AND_EDITORS: RouteAccess = { ...RESOURCES, deniedInside: ['member-key', 'member-session'] };

/** World-model assets (spec G "Modeling"): the company's people by key or web session, and its apps' tickets (the app must register `modeling`). */
const WORLD = route('company', KEYS, SESSIONS, TICKETS);
/**
 * A generation is charged to an app: asked for with its ticket (never a viewer's). Keys and sessions
 * pass the door to hear why they are refused (world.generate), rather than a bare 401.
 */
const WORLD_GENERATE = {
  ...route('company', KEYS, SESSIONS, WRITING_TICKETS),
  deniedInside: [...KEYS, ...SESSIONS],
} satisfies RouteAccess;

/** Evolve's operations, and the same for each of their legacy paths (`Legacy…` operation ids: Versioning 6). */
const EVOLVE_CURRENT: Record<string, RouteAccess> = {
  getEvolveEvidence: DEVELOPERS,
  suggestEvolveProposals: DEVELOPERS,
  createEvolveProposal: route('app', DEVELOPER_KEYS, DEVELOPER_SESSION, WRITING_TICKETS),
  listEvolveProposals: DEVELOPERS,
  getEvolveProposal: DEVELOPERS,
  applyEvolveProposal: { ...DEVELOPERS, deniedInside: DEVELOPER_KEYS },
  rejectEvolveProposal: { ...DEVELOPERS, deniedInside: DEVELOPER_KEYS },
  listEvolveImprovements: DEVELOPERS,
  deleteEvolveImprovement: DEVELOPERS,
  getEvolveOverlay: APP_SURFACE,
  // An upload of a new version (app.deploy): a developer key, as uploadAppVersion.
  compileEvolveImprovements: route('company', DEVELOPER_KEYS),
};

/** Legacy operation ids of an evolve operation: `improve/{namespace}/…` and `evolve/{namespace}/{slug}/…`. */
export const legacyEvolveIds = (operationId: string) => [`${operationId}LegacyImprove`, `${operationId}LegacyBySlug`];

const EVOLVE_ACCESS: Record<string, RouteAccess> = Object.fromEntries(
  Object.entries(EVOLVE_CURRENT).flatMap(([id, access]) => [[id, access], ...legacyEvolveIds(id).map((legacy) => [legacy, access])]),
);

/** One entry per operationId of the OpenAPI document. */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  // System, schemas, catalogs: no credential.
  getHealth: PUBLIC,
  getReadiness: PUBLIC,
  getOpenApiDocument: PUBLIC,
  getManifestSchema: PUBLIC,
  getWorkflowSchema: PUBLIC,
  getBillingPrices: PUBLIC,
  listModels: PUBLIC,

  // A. Login and keys.
  createPasswordToken: PUBLIC,
  createDeviceCode: PUBLIC,
  pollDeviceToken: PUBLIC,
  webSignIn: PUBLIC,
  webChangePassword: PUBLIC,
  webAcceptInvitation: PUBLIC,
  getMe: route('none', KEYS, AGENT_KEYS),
  listKeys: route('none', KEYS, SESSIONS),
  revokeKey: route('none', KEYS, SESSIONS),
  webLookupUserCode: route('none', SESSIONS),
  decideDeviceCode: route('none', SESSIONS),
  webCurrentSession: route('none', SESSIONS),
  webSignOut: route('none', SESSIONS),
  issueAgentKey: DEVELOPERS,
  listAgentKeys: DEVELOPERS,
  revokeAgentKey: DEVELOPERS,

  // Operators.
  adminCreateOrganization: OPERATORS,
  // A company's own admins and developers read it and its people; which company is decided inside (people.manage).
  adminGetOrganization: PEOPLE,
  adminCreateUser: OPERATORS,
  adminListUsers: PEOPLE,
  adminGetUser: PEOPLE,
  // Every person sees themselves.
  adminGetCurrentUser: route('none', KEYS),
  adminUpdateUser: OPERATORS,
  // A company's custom attributes of its people: its admins and developers, operators (people.manage inside).
  adminSetUserAttributes: PEOPLE,
  adminPutLicense: OPERATORS,
  adminDeleteLicense: OPERATORS,
  adminListUserKeys: OPERATORS,
  adminRevokeUserKeys: OPERATORS,
  adminListSecurityEvents: OPERATORS,
  adminSetSeatLimit: OPERATORS,
  controlPlaneInitializeCompany: OPERATORS,

  // Groups (spec G): a company's admins and developers by key (as they manage its members),
  // operators for every company; which company is decided inside (people.manage).
  adminCreateGroup: PEOPLE,
  adminListGroups: PEOPLE,
  adminGetGroup: PEOPLE,
  adminDeleteGroup: PEOPLE,
  adminListGroupMembers: PEOPLE,
  adminAddGroupMembers: PEOPLE,
  adminRemoveGroupMembers: PEOPLE,

  // Markings (spec G): a company's people read its categories and markings by key; who may create
  // them (people.manage) and change a marking's role assignments (its ADMINISTERs, operators:
  // marking.administer) is decided inside.
  adminCreateMarkingCategory: { ...MARKINGS, deniedInside: ['member-key'] },
  adminListMarkingCategories: MARKINGS,
  adminGetMarkingCategory: MARKINGS,
  adminCreateMarking: { ...MARKINGS, deniedInside: ['member-key'] },
  adminListMarkings: MARKINGS,
  adminGetMarking: MARKINGS,
  adminListMarkingRoleAssignments: MARKINGS,
  adminAddMarkingRoleAssignments: { ...MARKINGS, deniedInside: ['member-key'] },
  adminRemoveMarkingRoleAssignments: { ...MARKINGS, deniedInside: ['member-key'] },
  controlPlaneCloudInstance: OPERATORS,
  controlPlaneFolders: OPERATORS,
  controlPlaneAgentProfiles: OPERATORS,
  controlPlaneProvisioningStatus: OPERATORS,
  controlPlaneListCompanies: OPERATORS,
  // The Temporal Web UI's codec server, called from the browser with the person's web session (or an
  // operator key from the temporal CLI): staff's sessions are developer sessions, so the policy
  // (temporal.decode-payloads) admits those of staff inside and refuses every other.
  adminDecodeTemporalPayloads: { ...route('none', OPERATOR, DEVELOPER_SESSION), deniedInside: DEVELOPER_SESSION },

  // B. Apps, versions, channels.
  listApps: route('none', KEYS),
  getRegistry: route('none', KEYS),
  getApp: route('company', KEYS),
  findStoredFiles: route('company', DEVELOPER_KEYS),
  uploadAppVersion: route('company', DEVELOPER_KEYS),
  promoteAppVersion: route('company', DEVELOPER_KEYS),
  listAppApis: APP_SURFACE,
  getAppAbout: APP_SURFACE,
  getAppCard: APP_SURFACE,
  // The one route of an app token (its audience); its role decides inside.
  callAppMcp: route('app', KEYS, TICKETS, APP_TOKENS),
  renewAppTicket: route('app', TICKETS),
  getAppUsage: route('app', DEVELOPER_KEYS, TICKETS),

  // OAuth for MCP hosts.
  getOAuthAuthorizationServer: PUBLIC,
  getMcpProtectedResource: PUBLIC,
  registerOAuthClient: PUBLIC,
  issueOAuthToken: PUBLIC,
  revokeOAuthToken: PUBLIC,
  describeOAuthAuthorization: route('none', SESSIONS),
  decideOAuthAuthorization: route('none', SESSIONS),

  // C. App access and sharing: sharing is a developer action through a key or a web session.
  getAuthMe: route('none', KEYS, SESSIONS, TICKETS),
  listShares: DEVELOPERS,
  createShare: DEVELOPERS,
  revokeShare: DEVELOPERS,
  listMembers: route('none', DEVELOPER_KEYS),
  importMembers: route('none', DEVELOPER_KEYS),
  reissueMemberInvitation: route('none', DEVELOPER_KEYS),

  // D. Resource access (roles decide inside: grants and the implicit Owners).
  listResources: RESOURCES,
  getResource: RESOURCES,
  listResourceRoles: RESOURCES,
  addResourceRole: RESOURCES,
  removeResourceRole: RESOURCES,
  setResourceTier: RESOURCES,
  createResourceLink: RESOURCES,
  revokeResourceLink: RESOURCES,
  redeemResourceLink: RESOURCES,
  searchPrincipals: RESOURCES,
  // Resource markings: whoever sees the resource reads them; Owners with USE (add) or DECLASSIFY
  // (remove) on each marking change them (resource.mark).
  listResourceMarkings: RESOURCES,
  addResourceMarkings: RESOURCES,
  removeResourceMarkings: RESOURCES,

  // E. App log: anyone who may open the app sends events; its developers read them.
  recordLogEvents: route('app', KEYS, TICKETS),
  listLogEvents: DEVELOPERS,
  followLogEvents: DEVELOPERS,
  setFeedbackStatus: DEVELOPERS,
  getLogSummary: DEVELOPERS,

  // Evolve (spec G): the company's developers read evidence, propose and manage improvements; an
  // app's page (its ticket) proposes for its own visitor; deciding a proposal is a developer's web
  // login only (evolve.decide, the branch rule); whoever may open the app reads their own overlay.
  ...EVOLVE_ACCESS,

  // Billing.
  estimateBillingCost: route('none', KEYS),
  getBillingSummary: route('company', DEVELOPER_KEYS),
  listBillingRecords: route('company', DEVELOPER_KEYS),
  checkBillingBudget: route('company', DEVELOPER_KEYS),

  // Semantic definitions, branches and proposals: developers (agent authors write to branches).
  // The public app link (spec D rule 7): no credential is read; the policy's anonymous rule admits
  // only an internet-tier app, and only the types it reads (404 app_not_found otherwise).
  getPublicApp: PUBLIC,
  listPublicAppObjects: PUBLIC,
  getPublicAppObject: PUBLIC,
  listSemanticTypes: DEVELOPERS,
  defineSemanticTypes: DEVELOPERS,
  defineActionTypes: DEVELOPERS,
  createBranch: DEVELOPERS,
  listBranches: DEVELOPERS,
  getBranch: DEVELOPERS,
  createProposal: DEVELOPERS,
  listProposals: DEVELOPERS,
  // Decided by a human web login only (spec "Branches"): keys are refused inside, 403 (ontology.decide-proposal).
  approveProposal: { ...DEVELOPERS, deniedInside: DEVELOPER_KEYS },
  rejectProposal: { ...DEVELOPERS, deniedInside: DEVELOPER_KEYS },
  mergeProposal: { ...DEVELOPERS, deniedInside: DEVELOPER_KEYS },

  // The ontology's data.
  listOntologies: route('none', KEYS, SESSIONS, TICKETS, AGENT_KEYS),
  getOntology: DATA,
  listObjectTypes: DATA,
  getObjectType: DATA,
  // Object security policies: the company's developers (the use case also asks ontology.define).
  getObjectTypeSecurity: DEVELOPERS,
  setObjectTypeSecurity: DEVELOPERS,
  testObjectSecurity: DEVELOPERS,
  listOutgoingLinkTypes: DATA,
  getOutgoingLinkType: DATA,
  listObjects: DATA,
  getObject: DATA,
  searchObjects: DATA,
  aggregateObjects: DATA,
  listLinkedObjects: DATA,
  getLinkedObject: DATA,
  loadObjectSet: DATA,
  aggregateObjectSet: DATA,
  createTemporaryObjectSet: DATA,
  getObjectSet: DATA,
  streamOntologySubscriptions: DATA,
  listActionTypes: DATA,
  getActionType: DATA,
  listEditsHistory: DATA,
  executeOntologySql: DATA,
  describeOntologyDatabase: DATA,
  // Refused to every caller who may read the ontology (501, the reason); the others get its 404.
  syncOntologyDatabase: DATA,
  createOntologyDatabaseCredentials: DATA,
  applyAction: DATA_WRITE,
  applyActionBatch: DATA_WRITE,
  // Attachments: uploaded by whoever may apply actions, to the caller's own company (no company in
  // the path); read by rid by their uploader and the company's developers (attachment.read, 404
  // for others); read through an object as the object is (DATA, ontology.read inside).
  uploadAttachment: route('none', KEYS, SESSIONS, WRITING_TICKETS, ['agent-key-restricted']),
  getAttachment: route('none', KEYS, SESSIONS, TICKETS, AGENT_KEYS),
  readAttachment: route('none', KEYS, SESSIONS, TICKETS, AGENT_KEYS),
  listPropertyAttachments: DATA,
  readPropertyAttachment: DATA,
  // A media property's item read through its object, as the object is read (media.read-through-object inside).
  readObjectMediaContent: DATA,
  readObjectMediaThumbnail: DATA,
  // Member sessions pass the door so that an ontology they cannot read stays invisible (404); the
  // policy refuses them where they can read it (403, ontology.edit).
  editObjects: { ...route('company', DEVELOPER_KEYS, SESSIONS), deniedInside: ['member-session'] },
  importObjects: { ...route('company', DEVELOPER_KEYS, SESSIONS), deniedInside: ['member-session'] },

  // Workflows: runs are read by the app's developers and on the app page by those who may start
  // runs (viewers start none, so they see none); `run` is refused to viewers inside (exports are reads).
  listWorkflowRuns: route('app', DEVELOPER_KEYS, WRITING_TICKETS),
  watchWorkflowRuns: route('app', DEVELOPER_KEYS, WRITING_TICKETS),
  // Viewers pass the door for exports (reads); the workflow `run` is refused to them inside (app.workflow.run, finding 2).
  executeAppApi: { ...APP_SURFACE, deniedInside: ['viewer-ticket'] },
  listCapabilities: route('company', DEVELOPER_KEYS),

  // Media sets (generic resources): people's keys and web sessions; the role on the set decides
  // inside (media-set.read: any role, else 404; media-set.write: Owner or Editor). Never agent keys
  // (the spec gives them no media-set role), never tickets. Creating one: the developers of the company it names.
  createMediaSet: { ...route('company', KEYS, SESSIONS), deniedInside: ['member-key', 'member-session'] },
  listMediaSets: RESOURCES,
  getMediaSet: RESOURCES,
  createMediaSetTransaction: RESOURCES,
  commitMediaSetTransaction: RESOURCES,
  abortMediaSetTransaction: RESOURCES,
  putMediaItem: RESOURCES,
  listMediaItems: RESOURCES,
  getMediaItemRidByPath: RESOURCES,
  getMediaItemInfo: RESOURCES,
  readMediaItemContent: RESOURCES,
  // Any role on the set may transform its items (a thumbnail is a view of what they may read).
  transformMediaItem: RESOURCES,
  getMediaTransformationJobStatus: RESOURCES,
  readMediaTransformationResult: RESOURCES,

  // Application modules (generic resources): people's keys and web sessions (never tickets, which
  // belong to bundle apps, nor agent keys); the role on the module decides inside (workshop.read:
  // any role, else 404; workshop.edit: Editors; workshop.manage: Owners). Creating one: the
  // developers of the company it names. The company's members are its Viewers when it is open to
  // the company (the default): saving, publishing and deleting refuse them inside.
  getWorkshopModuleSchema: PUBLIC,
  createWorkshopModule: { ...route('company', KEYS, SESSIONS), deniedInside: ['member-key', 'member-session'] },
  listWorkshopModules: RESOURCES,
  getWorkshopModule: RESOURCES,
  deleteWorkshopModule: MODULE_OWNERS_AND_EDITORS,
  listWorkshopModuleVersions: RESOURCES,
  saveWorkshopModuleVersion: MODULE_OWNERS_AND_EDITORS,
  getWorkshopModuleVersion: RESOURCES,
  publishWorkshopModuleVersion: MODULE_OWNERS_AND_EDITORS,
  evaluateWorkshopModule: RESOURCES,
  autoRefreshWorkshopModule: RESOURCES,
  // Upload sessions into a media property: who may upload into the type (ontology.upload-media).
  createMediaUpload: MEDIA_UPLOADS,
  putMediaUploadPart: MEDIA_UPLOADS,
  completeMediaUpload: MEDIA_UPLOADS,
  deleteMediaUpload: MEDIA_UPLOADS,
  sendTestNotification: route('none', KEYS, SESSIONS),

  // Vision cameras: read, probed and watched as CAMERAS says; registered, changed and removed by the company's developers.
  listCameras: CAMERAS,
  getCamera: CAMERAS,
  probeCamera: CAMERAS,
  getCameraKeyframe: CAMERAS,
  watchCameraLive: CAMERAS,
  createCamera: DEVELOPERS,
  updateCamera: DEVELOPERS,
  deleteCamera: DEVELOPERS,
  // Models: developers by key or web session (spec Authentication 2), and app tickets, each for the
  // models its manifest lists (model.call inside: 404 model_not_found for the others).
  detectVision: route('none', DEVELOPER_KEYS, DEVELOPER_SESSION, TICKETS),
  // Data pipelines: the company's developers (connectivity.manage: secrets, syncs, builds).
  createDataConnection: DEVELOPERS,
  listDataConnections: DEVELOPERS,
  getDataConnection: DEVELOPERS,
  deleteDataConnection: DEVELOPERS,
  testDataConnection: DEVELOPERS,
  createDataSync: DEVELOPERS,
  listDataSyncs: DEVELOPERS,
  getDataSync: DEVELOPERS,
  deleteDataSync: DEVELOPERS,
  createBuild: DEVELOPERS,
  listBuilds: DEVELOPERS,
  getBuild: DEVELOPERS,
  cancelBuild: DEVELOPERS,
  syncPlatformDataSource: DEVELOPERS,
  // Data streams (spec G): the company's developers define, bind, read and delete them
  // (stream.manage); records are pushed by them and by the tickets of the company's apps whose
  // manifest lists the stream, never a viewer's (stream.push: 404 for an unlisted stream).
  createStream: DEVELOPERS,
  listStreams: DEVELOPERS,
  getStream: DEVELOPERS,
  deleteStream: DEVELOPERS,
  putStreamBinding: DEVELOPERS,
  deleteStreamBinding: DEVELOPERS,
  listStreamRecords: DEVELOPERS,
  pushStreamRecords: route('company', DEVELOPER_KEYS, DEVELOPER_SESSION, WRITING_TICKETS),
  // Automations: the company's developers (automation.manage).
  createAutomation: DEVELOPERS,
  listAutomations: DEVELOPERS,
  getAutomation: DEVELOPERS,
  updateAutomation: DEVELOPERS,
  deleteAutomation: DEVELOPERS,
  enableAutomation: DEVELOPERS,
  disableAutomation: DEVELOPERS,
  dryRunAutomation: DEVELOPERS,
  listAutomationRuns: DEVELOPERS,
  // Modeling: assets viewed by the company's people and its modeling apps, changed by its developers;
  // generations asked for with an app's ticket (its credits), never a viewer's.
  listWorldAssets: WORLD,
  getWorldAsset: WORLD,
  getWorldGeneration: WORLD,
  putWorldAsset: DEVELOPERS,
  deleteWorldAsset: DEVELOPERS,
  requestWorldGeneration: WORLD_GENERATE,
};

/** The one caller kind a principal is (see the list above); a session's kind follows its licenses. */
export function callerKindOf(principal: Principal | null): CallerKind {
  if (principal === null) return 'anonymous';
  switch (principal.kind) {
    case 'key':
      if (isAgentKey(principal))
        return principal.agent?.restrictions?.operations.includes('api:use-ontologies-write') ? 'agent-key-restricted' : 'agent-key';
      if (principal.account.platformStaff) return 'operator-key';
      return principal.role === 'developer' ? 'developer-key' : 'member-key';
    case 'session':
      return principal.account.platformStaff || principal.licenses.some((l) => l.role === 'developer')
        ? 'developer-session'
        : 'member-session';
    case 'ticket':
      if (isAppToken(principal)) return principal.ticket.role === 'viewer' ? 'viewer-app-token' : 'member-app-token';
      return `${principal.ticket.role}-ticket`;
  }
}

type CredentialTypes = { key: boolean; session: boolean; ticket: boolean };
// Entries never change: each is read once (authentication asks on every request).
const credentialTypes = new WeakMap<RouteAccess, CredentialTypes>();

/** The credential types a route reads at all (the others are never looked at: a cookie on a key-only route is no credential). */
export function credentialTypesOf(access: RouteAccess): CredentialTypes {
  let types = credentialTypes.get(access);
  if (!types) {
    const has = (suffix: string) => access.admits.some((k) => k.endsWith(suffix));
    types = { key: has('-key'), session: has('-session'), ticket: has('-ticket') || has('-app-token') };
    credentialTypes.set(access, types);
  }
  return types;
}

/**
 * The service's pages and their files, outside the OpenAPI document, by route path: static shells
 * and server-rendered pages open to anyone. What a page shows beyond itself comes from API calls
 * its script makes (decided by ROUTE_ACCESS) or, for the landing page, from the visitor's own
 * session. The route × principal matrix test asks each of them with every caller.
 */
export const PAGE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  '/': PUBLIC,
  '/signin': PUBLIC,
  '/signout': PUBLIC,
  '/device': PUBLIC,
  '/web/log': PUBLIC,
  // An application module page: static HTML; its script reads the module with the session (workshop.read).
  '/web/modules': PUBLIC,
  '/oauth/authorize': PUBLIC,
  '/web/assets/:name': PUBLIC,
  // The API reference (swagger-ui over the OpenAPI document, itself public) and swagger-ui's files.
  '/docs/api': PUBLIC,
  '/web/assets/swagger-ui/:version/:file': PUBLIC,
};
