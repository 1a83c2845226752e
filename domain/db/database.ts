import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';
import type { ProvisioningPart } from '../../schemas/workflow-keys.ts';

// The typed map of every table. Each capability adds its tables here together
// with a new migration; migrations themselves are frozen once landed.

export interface ServiceInstanceTable {
  /** Always 1: the table holds exactly one row describing this installation. */
  singleton: ColumnType<number, number | undefined, never>;
  instance_id: string;
  created_at: Generated<Date>;
}

export type AccountStatus = 'active' | 'pending' | 'disabled';
export type CompanyRole = 'developer' | 'member';
/** A visitor's role in one app (spec Authentication 9). */
export type AppRole = 'developer' | 'member' | 'editor' | 'viewer';

export interface AccountsTable {
  id: string;
  username: string;
  email: string;
  /** scrypt hash; null for pending accounts that cannot sign in. */
  password_hash: string | null;
  status: AccountStatus;
  email_verified: Generated<boolean>;
  must_change_password: Generated<boolean>;
  /** Platform staff (operators): admin endpoints and the `public` namespace. */
  platform_staff: Generated<boolean>;
  /** Consecutive password failures, shared by terminal and web sign-in. */
  failed_logins: Generated<number>;
  locked_until: Date | null;
  created_at: Generated<Date>;
  /** The person's name as a member import gave it. */
  display_name: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CompaniesTable {
  id: string;
  /** `cell-<id>`, the company's namespace. */
  cell_id: string;
  name: string;
  created_at: Generated<Date>;
  /** Licenses the company may hold; null: no limit. Set by operators. */
  seat_limit: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface LicensesTable {
  account_id: string;
  company_id: string;
  role: CompanyRole;
  admin: Generated<boolean>;
  created_at: Generated<Date>;
  /** The person's id in the company's source system (member import); unique per company. */
  external_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DeveloperKeysTable {
  id: string;
  /** SHA-256 of the plaintext; the plaintext is never stored. */
  hash: Buffer;
  display_prefix: string;
  account_id: string;
  company_id: string;
  role: CompanyRole;
  client_name: string;
  issued_by: 'password' | 'device' | 'agent';
  /** Restricted agent keys only: the agent, and what the key may do (schemas/ontology-actions.ts AgentRestrictions). */
  agent_id: ColumnType<string | null, string | null | undefined, never>;
  restrictions: ColumnType<Record<string, unknown> | null, string | null | undefined, never>;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_reason: KeyRevocationReason | null;
}

/** Why a key stopped working. Every revocation is permanent. */
export type KeyRevocationReason = 'owner' | 'operator' | 'password_change' | 'password_reset' | 'account_disabled' | 'license_removed';

export interface WebSessionsTable {
  /** SHA-256 of the cookie value. */
  hash: Buffer;
  account_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
  /** The app host (`host[:port]`) of a handed-off session; null for the {base_url} session. */
  host: string | null;
  /** The {base_url} session an app-host session was handed off from; it ends with it. */
  parent_hash: Buffer | null;
}

export interface AppHandoffCodesTable {
  hash: Buffer;
  session_hash: Buffer;
  host: string;
  state_hash: Buffer;
  expires_at: Date;
}

export type DeviceLoginStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export interface DeviceLoginsTable {
  id: string;
  device_code_hash: Buffer;
  /** Eight letters without the hyphen, upper case. */
  user_code: string;
  client_name: string;
  status: DeviceLoginStatus;
  interval_seconds: number;
  expires_at: Date;
  last_polled_at: Date | null;
  account_id: string | null;
  company_id: string | null;
  role: CompanyRole | null;
  key_id: string | null;
  created_at: Generated<Date>;
  decided_at: Date | null;
}

export interface RateLimitHitsTable {
  bucket: string;
  window_start: Date;
  hits: number;
}

export interface AppsTable {
  id: string;
  /** `public` or a company's `cell-…`. */
  namespace: string;
  slug: string;
  company_id: string | null;
  next_build: Generated<number>;
  test_version_id: string | null;
  production_version_id: string | null;
  created_by: string;
  created_at: Generated<Date>;
}

export interface BlobsTable {
  sha256: Buffer;
  size: number;
  content: Buffer;
  created_at: Generated<Date>;
}

/** When a blob was last stored or re-used (the sweep's grace clock), whichever store holds it. */
export interface BlobWritesTable {
  sha256: Buffer;
  written_at: Generated<Date>;
}

export interface AppVersionsTable {
  id: string;
  app_id: string;
  version: string;
  build: number;
  digest: string;
  manifest: ColumnType<unknown, string, string>;
  size: number;
  file_count: number;
  sdk_used: ColumnType<string[], string, string>;
  skills: ColumnType<unknown[], string, string>;
  warnings: ColumnType<unknown[], string, string>;
  notes: string | null;
  created_by: string;
  created_at: Generated<Date>;
}

export interface VersionFilesTable {
  version_id: string;
  path: string;
  blob_sha256: Buffer;
  content_type: string;
}

export type Channel = 'test' | 'production';
export type ReleaseAction = 'enter_test' | 'publish' | 'rollback';

export interface ReleaseRecordsTable {
  id: string;
  app_id: string;
  channel: Channel;
  action: ReleaseAction;
  from_version_id: string | null;
  to_version_id: string;
  actor_account_id: string;
  notes: string | null;
  seq: number;
  created_at: Generated<Date>;
}

export interface OutboxTable {
  id: string;
  topic: string;
  key: string;
  payload: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  last_error: string | null;
}

export type SecurityEventKind =
  | 'sign_in_failed'
  | 'account_locked'
  | 'key_issued'
  | 'key_revoked'
  | 'password_changed'
  | 'password_reset'
  | 'account_disabled'
  | 'account_enabled'
  | 'license_removed'
  | 'group_created'
  | 'group_deleted'
  | 'group_member_added'
  | 'group_member_removed'
  | 'marking_category_created'
  | 'marking_created'
  | 'marking_role_added'
  | 'marking_role_removed'
  | 'resource_marking_added'
  | 'resource_marking_removed'
  | 'object_security_policy_set'
  | 'user_attributes_set';

export interface SecurityEventsTable {
  id: string;
  at: Generated<Date>;
  kind: SecurityEventKind;
  account_id: string | null;
  actor_id: string | null;
  ip: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, never>;
}

export interface AppTicketsTable {
  id: string;
  /** SHA-256 of the plaintext `svc-at-…`. */
  hash: Buffer;
  account_id: string;
  app_id: string;
  channel: Channel;
  version_id: string;
  expires_at: Date;
  renewed_from: string | null;
  revoked_at: Date | null;
  created_at: Generated<Date>;
  /** The share the ticket's app open came through; the ticket ends with it. */
  share_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The key the app was opened with; the ticket ends with it. */
  key_id: ColumnType<string | null, string | null | undefined, never>;
  /** The web session the app was opened with; the ticket ends when it is ended (deleted). */
  session_hash: ColumnType<Buffer | null, Buffer | null | undefined, never>;
  /** When a renewal replaced the ticket: it admits a short overlap more, and never renews again. */
  renewed_at: ColumnType<Date | null, never, Date | null>;
  /** The visitor's app role when the ticket was issued (the app-open rule). */
  role: AppRole;
  /** The resource grant (rid, principal) the app open came through; removing or lowering it revokes the ticket. */
  grant_rid: ColumnType<string | null, string | null | undefined, never>;
  grant_principal: ColumnType<string | null, string | null | undefined, never>;
}

/** Server metadata as last synced (spec F: metadata only). */
export interface InstanceRecord {
  provider: 'aws' | 'local';
  instanceId: string;
  state: string;
  address: string | null;
  securityGroups: { id: string; name: string }[];
}

export interface CompanyProvisioningTable {
  company_id: string;
  company_key: string;
  name_en: string;
  name_zh: string;
  root_path: string;
  cloud: ColumnType<{ profile: string; accountId: string; region: string; instanceName: string }, string, string>;
  instance: ColumnType<InstanceRecord | null, string | null, string | null>;
  instance_synced_at: Date | null;
  /** What the next run's move step still has to do on disk (set by initialize with `apply: "move"`). */
  pending_move: ColumnType<PendingMove | null, string | null | undefined, string | null>;
  /** The client-token generation of the current instance; a replacement counts it up. */
  instance_generation: ColumnType<number, number | undefined, number>;
  /** The instances replaced so far, oldest first. */
  replaced_instances: ColumnType<ReplacedInstance[], string | undefined, string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ReplacedInstance {
  instanceId: string;
  /** Its state when the replacement was asked for. */
  state: string;
  replacedAt: string;
  /** The generation of its replacement. */
  generation: number;
}

export interface PendingMove {
  fromRoot: string;
  toRoot: string;
  fromKey: string;
  toKey: string;
}

export type { ProvisioningPart } from '../../schemas/workflow-keys.ts';

export interface ProvisioningRequestsTable {
  id: string;
  company_id: string;
  part: ProvisioningPart;
  workflow_id: string;
  run_id: string | null;
  requested_by: string;
  requested_at: Generated<Date>;
}

export type ProvisioningRunStatus = 'running' | 'completed' | 'failed';

/** One step of a run as its activities recorded it. */
export interface ProvisioningStepRecord {
  name: string;
  status: 'running' | 'retrying' | 'completed' | 'failed';
  /** Attempts made so far (Temporal's attempt number of the latest). */
  attempts: number;
  lastError: string | null;
  /** What the step did to each thing it looked after: created, reused, refreshed or moved. */
  changes: { item: string; outcome: 'created' | 'reused' | 'refreshed' | 'moved'; note?: string }[];
  at: string;
}

export interface ProvisioningRunsTable {
  run_id: string;
  workflow_id: string;
  company_id: string;
  part: ProvisioningPart;
  status: ProvisioningRunStatus;
  steps: ColumnType<ProvisioningStepRecord[], string | undefined, string>;
  error: string | null;
  started_at: Generated<Date>;
  finished_at: Date | null;
}

export interface CompanyFoldersTable {
  company_id: string;
  name: string;
  path: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AgentProfilesTable {
  id: string;
  /** `ri.agents.svc.agent.<id>`: the profile as a resource of the generic access model. */
  rid: string;
  company_id: string;
  role: string;
  name: string;
  folder_path: string;
  profile_path: string;
  description_path: string;
  description_sha256: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type ShareAudience = 'company' | 'users' | 'public';
export type ShareRole = 'editor' | 'viewer';

export interface AppSharesTable {
  id: string;
  app_id: string;
  audience: ShareAudience;
  /** The named account (audience users), or null when a group is named. */
  account_id: string | null;
  /** The company whose members it admits (audience company): the app's own or another. */
  company_id: string | null;
  /** The named group (audience users), or null when an account is named. */
  group_id: ColumnType<string | null, string | null | undefined, never>;
  role: ShareRole;
  /** SHA-256 of a public link's token (audience public). */
  token_hash: Buffer | null;
  token_prefix: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_by: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type ShareRecordName = 'share/create' | 'share/update' | 'share/revoke';

/** The app log's share/* records. */
/** A license a member import added, shown to that company as pending until the person next signs in. */
export interface MemberInvitationsTable {
  account_id: string;
  company_id: string;
  /** The name the import gave; the company sees it instead of the account's own. */
  name: string | null;
  created_at: Generated<Date>;
}

export interface AccountInvitationsTable {
  hash: Buffer;
  account_id: string;
  expires_at: Date;
  created_at: Generated<Date>;
}

export type ResourceRole = 'owner' | 'editor' | 'viewer';

export interface GroupsTable {
  id: string;
  company_id: string;
  name: string;
  description: Generated<string>;
  /** The membership expiration policy: memberships last at most this many days (null: no limit). */
  max_membership_days: number | null;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface GroupMembersTable {
  account_id: string;
  group_id: string;
  expires_at: Date | null;
  added_by: string | null;
  added_at: Generated<Date>;
}

export type CategoryType = 'conjunctive' | 'disjunctive';
export type MarkingRole = 'administer' | 'declassify' | 'use';

export interface MarkingCategoriesTable {
  id: string;
  company_id: string;
  name: string;
  description: Generated<string>;
  category_type: CategoryType;
  marking_type: Generated<'mandatory' | 'cbac'>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface MarkingsTable {
  id: string;
  category_id: string;
  name: string;
  description: Generated<string>;
  created_by: string | null;
  created_at: Generated<Date>;
}

/** A role on a marking, held by an account id or a group id. */
export interface MarkingRoleAssignmentsTable {
  marking_id: string;
  principal: string;
  role: MarkingRole;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface ResourceMarkingsTable {
  rid: string;
  marking_id: string;
  created_by: string | null;
  created_at: Generated<Date>;
}

/** Custom user attributes a company sets on its people (its security policies read them). */
export interface AccountAttributesTable {
  account_id: string;
  company_id: string;
  name: string;
  values: string[];
  updated_by: string | null;
  updated_at: Generated<Date>;
}

export interface ObjectTypeSecurityTable {
  object_type_id: string;
  policy: unknown;
  updated_by: string | null;
  updated_at: Generated<Date>;
}

export interface ResourceGrantsTable {
  rid: string;
  principal: string;
  role: ResourceRole;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface ResourceLinksTable {
  id: string;
  rid: string;
  hash: Buffer;
  expires_at: Date;
  revoked_at: Date | null;
  created_by: string;
  created_at: Generated<Date>;
}

export type LogKind = 'usage' | 'feedback' | 'error' | 'action' | 'share';
export type FeedbackStatus = 'open' | 'planned' | 'done' | 'dismissed';

/** The app log (spec "App log event"): app-sent events and service-written records in one store. */
export interface AppLogEventsTable {
  id: string;
  app_id: string;
  at: Generated<Date>;
  kind: LogKind;
  source: 'app' | 'service';
  name: string;
  account_id: string | null;
  version_id: string | null;
  channel: Channel | null;
  /** JSON text on insert. */
  data: ColumnType<unknown, string | undefined, string>;
  status: FeedbackStatus | null;
  status_by: string | null;
  status_at: Date | null;
}

export type EvolveScope = 'company' | 'personal';

export interface EvolveProposalsTable {
  id: string;
  app_id: string;
  scope: EvolveScope;
  account_id: string | null;
  status: Generated<'open' | 'applied' | 'rejected'>;
  author_kind: 'developer' | 'agent' | 'member' | 'suggest';
  author_account_id: string;
  author_agent: string | null;
  title: string;
  rationale: string | null;
  /** JSON text on insert. */
  changes: ColumnType<unknown, string, string>;
  evidence: ColumnType<unknown, string | undefined, string>;
  created_at: Generated<Date>;
  decided_by: string | null;
  decided_at: Date | null;
}

export interface EvolveImprovementsTable {
  id: string;
  app_id: string;
  proposal_id: string;
  scope: EvolveScope;
  account_id: string | null;
  /** JSON text on insert. */
  changes: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  created_by: string;
}

export interface AppLogDailyTable {
  app_id: string;
  day: string;
  kind: LogKind;
  name: string;
  count: number;
}

export interface AppLogVisitorsTable {
  app_id: string;
  account_id: string;
  last_day: string;
}

export interface AppLogErrorCountsTable {
  app_id: string;
  account_id: string;
  day: string;
  class: string;
  seen: number;
}

export interface Database {
  service_instance: ServiceInstanceTable;
  accounts: AccountsTable;
  companies: CompaniesTable;
  licenses: LicensesTable;
  developer_keys: DeveloperKeysTable;
  web_sessions: WebSessionsTable;
  app_handoff_codes: AppHandoffCodesTable;
  device_logins: DeviceLoginsTable;
  rate_limit_hits: RateLimitHitsTable;
  apps: AppsTable;
  blobs: BlobsTable;
  blob_writes: BlobWritesTable;
  app_versions: AppVersionsTable;
  version_files: VersionFilesTable;
  release_records: ReleaseRecordsTable;
  outbox: OutboxTable;
  security_events: SecurityEventsTable;
  app_tickets: AppTicketsTable;
  company_provisioning: CompanyProvisioningTable;
  provisioning_requests: ProvisioningRequestsTable;
  provisioning_runs: ProvisioningRunsTable;
  company_folders: CompanyFoldersTable;
  agent_profiles: AgentProfilesTable;
  app_shares: AppSharesTable;
  account_invitations: AccountInvitationsTable;
  member_invitations: MemberInvitationsTable;
  resource_grants: ResourceGrantsTable;
  groups: GroupsTable;
  media_sets: MediaSetsTable;
  workshop_modules: WorkshopModulesTable;
  workshop_module_versions: WorkshopModuleVersionsTable;
  media_set_branches: MediaSetBranchesTable;
  media_set_transactions: MediaSetTransactionsTable;
  media_items: MediaItemsTable;
  media_transformations: MediaTransformationsTable;
  cameras: CamerasTable;
  media_property_sets: MediaPropertySetsTable;
  media_uploads: MediaUploadsTable;
  attachments: AttachmentsTable;
  attachment_links: AttachmentLinksTable;
  media_upload_parts: MediaUploadPartsTable;
  media_composites: MediaCompositesTable;
  media_composite_parts: MediaCompositePartsTable;
  world_assets: WorldAssetsTable;
  world_generations: WorldGenerationsTable;
  group_members: GroupMembersTable;
  marking_categories: MarkingCategoriesTable;
  markings: MarkingsTable;
  marking_role_assignments: MarkingRoleAssignmentsTable;
  resource_markings: ResourceMarkingsTable;
  object_type_security: ObjectTypeSecurityTable;
  account_attributes: AccountAttributesTable;
  resource_links: ResourceLinksTable;
  app_log_events: AppLogEventsTable;
  evolve_proposals: EvolveProposalsTable;
  evolve_improvements: EvolveImprovementsTable;
  app_log_error_counts: AppLogErrorCountsTable;
  app_log_daily: AppLogDailyTable;
  app_log_visitors: AppLogVisitorsTable;
  usage_counters: UsageCountersTable;
  usage_resets: UsageResetsTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  oauth_used_refresh_tokens: OAuthUsedRefreshTokensTable;
  ontologies: OntologiesTable;
  object_types: ObjectTypesTable;
  object_type_versions: ObjectTypeVersionsTable;
  link_types: LinkTypesTable;
  object_links: ObjectLinksTable;
  ontology_edits: OntologyEditsTable;
  ontology_changes: OntologyChangesTable;
  ontology_changes_trimmed: OntologyChangesTrimmedTable;
  temporary_object_sets: TemporaryObjectSetsTable;
  action_types: ActionTypesTable;
  action_type_versions: ActionTypeVersionsTable;
  ontology_branches: OntologyBranchesTable;
  ontology_branch_writes: OntologyBranchWritesTable;
  ontology_proposals: OntologyProposalsTable;
  workflow_runs: WorkflowRunsTable;
  workflow_run_events: WorkflowRunEventsTable;
  workflow_notifications: WorkflowNotificationsTable;
  ontology_sql_roles: OntologySqlRolesTable;
  data_connections: DataConnectionsTable;
  data_syncs: DataSyncsTable;
  data_builds: DataBuildsTable;
  data_build_jobs: DataBuildJobsTable;
  automations: AutomationsTable;
  automation_runs: AutomationRunsTable;
  data_streams: DataStreamsTable;
  data_stream_bindings: DataStreamBindingsTable;
  data_stream_records: DataStreamRecordsTable;
}

export type DataConnectionKind = 'postgresql' | 's3' | 'https';

export interface DataConnectionsTable {
  id: string;
  company_id: string;
  name: string;
  kind: DataConnectionKind;
  /** What may be shown (bucket, prefix, URL); JSON text on insert. */
  settings: ColumnType<Record<string, unknown>, string, string>;
  /** AES-256-GCM sealed secret fields (never shown, never logged). */
  secret: Buffer | null;
  secret_key_id: string | null;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface DataSyncsTable {
  id: string;
  company_id: string;
  connection_id: string;
  name: string;
  object_type: string;
  source: ColumnType<Record<string, unknown>, string, string>;
  mapping: ColumnType<Record<string, string>, string, string>;
  mode: 'incremental' | 'full';
  cursor_column: string | null;
  page_size: number;
  schedule: string | null;
  cursor: ColumnType<unknown, string | null | undefined, string | null>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export type BuildStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type BuildJobStatus = 'WAITING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface DataBuildsTable {
  id: string;
  company_id: string;
  workflow_id: string;
  status: BuildStatus;
  trigger: 'api' | 'schedule';
  requested_by: string | null;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface DataBuildJobsTable {
  build_id: string;
  position: number;
  sync_id: string | null;
  sync_name: string;
  depends_on: ColumnType<number[], number[] | undefined, number[]>;
  status: BuildJobStatus;
  /** bigint, read as a number. */
  rows_read: Generated<number>;
  rows_written: Generated<number>;
  pages: Generated<number>;
  cursor: ColumnType<unknown, string | null | undefined, string | null>;
  error: ColumnType<unknown, string | null | undefined, string | null>;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ActionTypesTable {
  id: string;
  ontology_id: string;
  /** The manifest's dotted action name (`semantic.actions`). */
  api_name: string;
  /** schemas/ontology-actions.ts ActionTypeDefinition, as written. */
  definition: ColumnType<Record<string, unknown>, string, string>;
  version: number;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ActionTypeVersionsTable {
  action_type_id: string;
  version: number;
  definition: ColumnType<Record<string, unknown>, string, never>;
  account_id: string | null;
  created_at: Generated<Date>;
}

export type BranchStatus = 'ACTIVE' | 'INACTIVE' | 'MERGED';

export interface OntologyBranchesTable {
  id: string;
  ontology_id: string;
  name: string;
  status: BranchStatus;
  account_id: string | null;
  /** `human` or `agent:<id>`. */
  author: string;
  last_activity_at: Date;
  inactive_since: Date | null;
  created_at: Generated<Date>;
}

export interface OntologyBranchWritesTable {
  seq: Generated<number>;
  branch_id: string;
  kind: 'objectTypes' | 'actionTypes';
  request: ColumnType<unknown, string, never>;
  account_id: string | null;
  created_at: Generated<Date>;
}

export type ProposalStatus = 'OPEN' | 'APPROVED' | 'REJECTED' | 'MERGED';

export interface OntologyProposalsTable {
  id: string;
  branch_id: string;
  title: string;
  status: ProposalStatus;
  account_id: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Generated<Date>;
}

/** One per company, made at its first definition; its objects live in `schema_name`. */
export interface OntologiesTable {
  id: string;
  company_id: string;
  schema_name: string;
  created_at: Generated<Date>;
}

export interface ObjectTypesTable {
  id: string;
  ontology_id: string;
  /** The manifest's dotted semantic name (`sales.Order`); also the name of the object table. */
  api_name: string;
  display_name: string;
  plural_display_name: string;
  description: string | null;
  primary_key: string;
  title_property: string;
  /** `{[apiName]: PropertyDefinition}` (schemas/ontology.ts). */
  properties: ColumnType<Record<string, unknown>, string, string>;
  /** +1 on every change of the definition. */
  version: number;
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ObjectTypeVersionsTable {
  object_type_id: string;
  version: number;
  definition: ColumnType<Record<string, unknown>, string, never>;
  account_id: string | null;
  created_at: Generated<Date>;
}

export type LinkCardinality = 'ONE' | 'MANY';

export interface LinkTypesTable {
  id: string;
  ontology_id: string;
  api_name: string;
  source_type_id: string;
  /** The name source objects use for the link. */
  source_link_name: string;
  /** How many target objects one source object may link to. */
  source_cardinality: LinkCardinality;
  target_type_id: string;
  target_link_name: string;
  target_cardinality: LinkCardinality;
  created_at: Generated<Date>;
}

export interface ObjectLinksTable {
  link_type_id: string;
  source_key: string;
  target_key: string;
  created_at: Generated<Date>;
}

export interface OntologyEditsTable {
  /** bigint, read as a number. */
  seq: Generated<number>;
  object_type_id: string;
  primary_key: string;
  operation_id: string;
  action_type_rid: string | null;
  account_id: string | null;
  at: Generated<Date>;
  /** json (as written; nothing queries inside it). */
  edit: ColumnType<{ type: 'create' | 'modify' | 'delete'; before: unknown; after: unknown }, string, never>;
  /** The writing transaction (xid8 as text; filled by its default). */
  xact: Generated<string>;
}

export type ChangeState = 'ADDED_OR_UPDATED' | 'REMOVED';

export interface OntologyChangesTable {
  seq: Generated<number>;
  company_id: string;
  object_type_id: string;
  primary_key: string;
  state: ChangeState;
  at: Generated<Date>;
  /** The writing transaction (xid8 as text; filled by its default). */
  xact: Generated<string>;
}

/** How far retention has trimmed ontology_changes (one row). */
export interface OntologyChangesTrimmedTable {
  id: Generated<boolean>;
  /** bigint, read as a number. */
  through_seq: number;
}

export interface TemporaryObjectSetsTable {
  id: string;
  ontology_id: string;
  object_set: ColumnType<unknown, string, never>;
  account_id: string;
  created_at: Generated<Date>;
  expires_at: Date;
}

/** Metering: one counter per app, meter and period (domain/usage/meters.ts). */
export interface UsageCountersTable {
  app_id: string;
  meter: string;
  /** `YYYY-MM` (monthly meters) or `YYYY-MM-DD` (daily meters), in UTC. */
  period: string;
  /** bigint, read as a number (domain/db/connect.ts). */
  amount: ColumnType<number, number, number>;
  updated_at: Generated<Date>;
}

export interface UsageResetsTable {
  /** The UTC month the reset opened, `YYYY-MM`. */
  period: string;
  ran_at: Date;
  reenabled_app_ids: ColumnType<string[], string, never>;
}

/** App workflows (domain/app-workflows/): one row per run, its steps as JSON. */
export type WorkflowRunStatus = 'running' | 'succeeded' | 'failed';
export type WorkflowTrigger = 'schedule' | 'change' | 'api';
export interface WorkflowRunsTable {
  id: string;
  app_id: string;
  version_id: string;
  channel: Channel;
  trigger: WorkflowTrigger;
  workflow_id: string;
  /** Temporal's run id, recorded when the run begins (null before). */
  temporal_run_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: WorkflowRunStatus;
  input: ColumnType<unknown, string, string>;
  steps: ColumnType<unknown[], string | undefined, string>;
  output: ColumnType<unknown, string | null | undefined, string | null>;
  error: string | null;
  idempotency_key: string | null;
  started_at: Date;
  finished_at: Date | null;
  duration_ms: number | null;
}

export interface WorkflowRunEventsTable {
  /** Per app, in commit order; bigint read as a number (domain/db/connect.ts). */
  seq: number;
  app_id: string;
  run_id: string;
  payload: ColumnType<unknown, string, never>;
  created_at: Generated<Date>;
}

/** `skipped`: the recipient was no longer an active account of the app's company at send time (error says so). */
export type NotificationStatus = 'sending' | 'sent' | 'recorded' | 'blocked' | 'failed' | 'skipped';
export interface WorkflowNotificationsTable {
  id: string;
  app_id: string | null;
  run_id: string | null;
  step_id: string | null;
  recipient: string;
  dedupe_key: string;
  subject: string;
  body: string;
  status: NotificationStatus;
  error: string | null;
  created_at: Date;
}

export type Db = Kysely<Database>;
/** Repository functions take either the pool or an open transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

/** OAuth 2.1 public clients (MCP hosts), registered dynamically. */
export interface OAuthClientsTable {
  id: string;
  name: string;
  redirect_uris: ColumnType<string[], string, string>;
  /** The registration as sent (RFC 7591 fields), answered back to the client. */
  metadata: ColumnType<Record<string, unknown>, string, string>;
  created_at: Generated<Date>;
}

/** One approval's authorization code, stored as a hash until its one redeem. */
export interface OAuthCodesTable {
  hash: Buffer;
  client_id: string;
  account_id: string;
  app_id: string;
  redirect_uri: string;
  /** PKCE S256 challenge: base64url SHA-256 of the client's verifier. */
  code_challenge: string;
  expires_at: Date;
  /** The share the person's access came through, if any: the tokens end with it. */
  share_id: ColumnType<string | null, string | null | undefined, never>;
}

/** App tokens (`svc-ot-…` access, `svc-or-…` refresh): one person's member-level credential for one app. */
export interface OAuthTokensTable {
  id: string;
  access_hash: Buffer;
  refresh_hash: Buffer;
  client_id: string;
  account_id: string;
  app_id: string;
  access_expires_at: Date;
  /** Absolute: 30 days from the authorization, not moved by refreshes. */
  refresh_expires_at: Date;
  revoked_at: Date | null;
  /** The authorization; refreshes keep it. */
  created_at: Generated<Date>;
  /** The share that admits the person (set at the authorization and at each refresh); the tokens end with it. */
  share_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Refresh tokens already rotated away: a replay revokes the grant (RFC 9700 4.14). */
export interface OAuthUsedRefreshTokensTable {
  hash: Buffer;
  token_id: string;
  used_at: Generated<Date>;
}

/** A login role ontology SQL runs as: one per company and set of readable object types (domain/ontology/sql/sql-roles.ts). */
export interface OntologySqlRolesTable {
  role_name: string;
  /** No foreign key: the row outlives its company and account, so the sweep (sql-roles.ts) can drop the role. */
  company_id: string;
  /** The schema its grants are on. */
  schema_name: string;
  /** apiNames, sorted. */
  object_types: string[];
  password: string;
  /** Whose queries the role runs (sql-roles.ts SqlCredential): key, agent, session or ticket, and the account. */
  credential_kind: 'key' | 'agent' | 'session' | 'ticket';
  account_id: string;
  created_at: Generated<Date>;
}

/** A media set (domain/media): generic resource `ri.mio.svc.media-set.<id>`. */
/** A company's camera; its credential sealed with the secret key named by `credential_key_id`. */
export interface CamerasTable {
  id: string;
  company_id: string;
  name: string;
  kind: 'snapshot' | 'mjpeg';
  url: string;
  max_viewers: number;
  credential_sealed: Buffer | null;
  credential_key_id: string | null;
  /** When the camera last refused the credential: no attempt for 10 minutes after it. */
  credential_rejected_at: Date | null;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** An application module (domain/workshop); `published_version` is what members open. */
export interface WorkshopModulesTable {
  id: string;
  company_id: string;
  name: string;
  published_version: number | null;
  created_by: string | null;
  created_at: Generated<Date>;
}

/** One saved version of a module: its definition (schemas/workshop.ts ModuleDefinition), never changed. */
export interface WorkshopModuleVersionsTable {
  module_id: string;
  version: number;
  definition: ColumnType<unknown, string, never>;
  created_by: string | null;
  created_at: Generated<Date>;
}

/** A company's world-model asset (a scene document); its bytes in the blob store by SHA-256. */
export interface WorldAssetsTable {
  id: string;
  company_id: string;
  name: string;
  sha256: Buffer;
  size: number;
  generation_id: string | null;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** An app's world generation request; its credits counted when accepted. */
export interface WorldGenerationsTable {
  id: string;
  company_id: string;
  app_id: string;
  provider: string;
  asset_name: string;
  request: ColumnType<unknown, string, never>;
  credits: number;
  status: 'queued' | 'succeeded' | 'failed';
  error: string | null;
  created_by: string | null;
  created_at: Generated<Date>;
  finished_at: Date | null;
}

export interface MediaSetsTable {
  id: string;
  company_id: string;
  name: string;
  schema: 'image' | 'audio' | 'video' | 'document' | 'any';
  /** Exact types or `type/*`; empty: whatever the schema admits. */
  allowed_mime_types: ColumnType<string[], string[] | undefined, string[]>;
  created_by: string | null;
  created_at: Generated<Date>;
}

/** A branch of a media set; `view_id` names its live view (`ri.mio.svc.media-set-view.<view_id>`). */
export interface MediaSetBranchesTable {
  id: string;
  media_set_id: string;
  name: string;
  view_id: string;
  created_at: Generated<Date>;
}

/** A media set transaction: at most one OPEN per branch. */
export interface MediaSetTransactionsTable {
  id: string;
  branch_id: string;
  state: 'OPEN' | 'COMMITTED' | 'ABORTED';
  created_by: string | null;
  created_at: Generated<Date>;
  closed_at: Date | null;
}

/** The media set of a media property (made at its first upload). */
export interface MediaPropertySetsTable {
  object_type_id: string;
  property: string;
  media_set_id: string;
}

/** An upload session into a media property (domain/media upload sessions). */
/** An uploaded attachment (issue 30); its bytes are in the content store by SHA-256. */
export interface AttachmentsTable {
  id: string;
  company_id: string;
  filename: string;
  media_type: string;
  /** bigint, read as a number. */
  size: number;
  sha256: Buffer;
  created_by: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** The attachment an object's attachment property holds (kept by the one writer). */
export interface AttachmentLinksTable {
  object_type_id: string;
  primary_key: string;
  property: string;
  attachment_id: string;
}

export interface MediaUploadsTable {
  id: string;
  object_type_id: string;
  property: string;
  media_set_id: string;
  /** The object's primary key as JSON, or null. */
  primary_key: string | null;
  size: number;
  mime_type: string;
  state: 'OPEN' | 'COMPLETING' | 'COMPLETED' | 'FAILED' | 'PURGED';
  media_item_id: string | null;
  /** Why a FAILED session failed (a MEDIA_UPLOAD_FAILURES code) and in words. */
  failure_code: string | null;
  failure_message: string | null;
  created_by: string | null;
  completed_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One part of an upload session; its bytes are in the content store by SHA-256. */
export interface MediaUploadPartsTable {
  upload_id: string;
  part_number: number;
  sha256: Buffer;
  size: number;
}

/** A composite media item: an item stored as the ordered blobs of its upload's parts, keyed by its SHA-256. */
export interface MediaCompositesTable {
  sha256: Buffer;
  size: number;
  created_at: Generated<Date>;
}

/** One part of a composite item: its blob, and where its bytes lie in the item. */
export interface MediaCompositePartsTable {
  item_sha256: Buffer;
  position: number;
  part_sha256: Buffer;
  start: number;
  size: number;
}

/** A media transformation job and its cached result (id: SHA-256 of the input's hash and the transformation). */
export interface MediaTransformationsTable {
  id: string;
  input_sha256: Buffer;
  status: 'SUCCESSFUL' | 'FAILED';
  output_sha256: Buffer | null;
  output_mime_type: string | null;
  output_size: number | null;
  failure: string | null;
  created_at: Generated<Date>;
}

/** A media item: visible at once (put outside a transaction) or at its transaction's commit. */
export interface MediaItemsTable {
  id: string;
  branch_id: string;
  transaction_id: string | null;
  visible: boolean;
  path: string;
  sha256: Buffer;
  size: number;
  mime_type: string;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface AutomationsTable {
  id: string;
  company_id: string;
  app_id: string;
  name: string;
  enabled: boolean;
  /** schemas/automate.ts AutomationCondition. */
  condition: ColumnType<unknown, string, string>;
  /** schemas/automate.ts AutomationEffect[]. */
  effects: ColumnType<unknown, string, string>;
  retries: number;
  cooldown_seconds: number;
  daily_cap: number;
  threshold_met: boolean | null;
  last_fired_at: Date | null;
  owner_id: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type AutomationRunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'SKIPPED';

export interface AutomationRunsTable {
  id: string;
  automation_id: string;
  trigger_key: string;
  trigger: ColumnType<unknown, string, never>;
  status: AutomationRunStatus;
  skip_reason: string | null;
  effects: ColumnType<unknown, string | undefined, string>;
  error: string | null;
  workflow_id: string;
  temporal_run_id: string;
  started_at: Date;
  finished_at: Date | null;
}

export interface DataStreamsTable {
  id: string;
  company_id: string;
  name: string;
  description: string;
  /** The record schema (StreamField[]); JSON text on insert. */
  fields: ColumnType<{ name: string; type: string; required: boolean }[], string, string>;
  last_seq: Generated<number>;
  last_pushed_at: Date | null;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface DataStreamBindingsTable {
  stream_id: string;
  object_type: string;
  mapping: ColumnType<Record<string, string>, string, string>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface DataStreamRecordsTable {
  stream_id: string;
  seq: number;
  record: ColumnType<Record<string, unknown>, string, never>;
  pushed_by: string | null;
  pushed_at: Generated<Date>;
}
