import type { Migration } from 'kysely/migration';
import * as foundation from './2026-11-22.1-foundation.ts';
import * as identity from './2026-11-22.2-identity.ts';
import * as apps from './2026-11-22.3-apps.ts';
import * as outbox from './2026-11-22.4-outbox.ts';
import * as securityEvents from './2026-11-22.5-security-events.ts';
import * as blobStore from './2026-11-22.6-blob-store.ts';
import * as hosting from './2026-11-22.7-hosting.ts';
import * as appHostSessions from './2026-11-22.8-app-host-sessions.ts';
import * as sharing from './2026-11-22.9-sharing.ts';
import * as companyInitialization from './2026-11-22T2100-company-initialization.ts';
import * as versionFilesByBlob from './2026-11-22T2115-version-files-by-blob.ts';
import * as appLog from './2026-11-22T2145-app-log.ts';
import * as usage from './2026-11-22T2150-usage.ts';
import * as ontology from './2026-11-22T2200-ontology.ts';
import * as mcpOAuth from './2026-11-22T2210-mcp-oauth.ts';
import * as appWorkflows from './2026-11-22T2220-app-workflows.ts';
import * as performance from './2026-11-22T2230-performance.ts';
import * as ontologyActions from './2026-11-22T2240-ontology-actions.ts';
import * as ontologySql from './2026-11-22T2250-ontology-sql.ts';
import * as ontologySubscriptions from './2026-11-22T2255-ontology-subscriptions.ts';
import * as ontologySqlBudgets from './2026-11-25T0010-ontology-sql-budgets.ts';
import * as ticketRole from './2026-11-25T0050-ticket-role.ts';
import * as credentialSources from './2026-11-25T0060-credential-sources.ts';
import * as memberInvitations from './2026-11-25T0070-member-invitations.ts';
import * as onlineVersions from './2026-11-25T0130-online-versions.ts';
import * as ticketGrantSource from './2026-11-25T0140-ticket-grant-source.ts';
import * as sqlRoleLifecycle from './2026-11-25T0150-sql-role-lifecycle.ts';
import * as ticketRenewals from './2026-11-25T0160-ticket-renewals.ts';
import * as provisioningMoves from './2026-11-27T0200-provisioning-moves.ts';
import * as provisioningReplacements from './2026-11-27T0200-provisioning-replacements.ts';
import * as companyShares from './2026-11-27T0300-company-shares.ts';
import * as groups from './2026-11-27T0400-groups.ts';
import * as markings from './2026-11-27T0500-markings.ts';
import * as objectSecurity from './2026-11-27T0800-object-security.ts';
import * as accountAttributes from './2026-11-27T0900-account-attributes.ts';
import * as workflowRunTemporalRunId from './2026-11-27T1200-workflow-run-temporal-run-id.ts';
import * as openDecisions from './2026-11-27T1300-open-decisions.ts';
import * as mediaSets from './2026-11-27T1400-media-sets.ts';
import * as evolve from './2026-11-27T1500-evolve.ts';
import * as unloggedRateLimits from './2026-11-28T0050-unlogged-rate-limits.ts';
import * as mediaTransformations from './2026-11-28T0100-media-transformations.ts';
import * as workshopModules from './2026-11-28T0200-workshop-modules.ts';
import * as cameras from './2026-11-28T0300-cameras.ts';
import * as dataPipelines from './2026-11-28T0400-data-pipelines.ts';
import * as mediaUploads from './2026-11-28T0500-media-uploads.ts';
import * as modeling from './2026-11-28T0600-modeling.ts';
import * as mediaUploadAssembly from './2026-11-28T0700-media-upload-assembly.ts';
import * as attachments from './2026-11-28T0800-attachments.ts';
import * as automations from './2026-11-28T0900-automations.ts';
import * as streams from './2026-11-28T1100-streams.ts';
import * as blobSweep from './2026-11-28T1200-blob-sweep.ts';
import * as ontologyHistoryChecks from './2026-11-28T1300-ontology-history-checks.ts';
import * as mediaComposites from './2026-11-28T1700-media-composites.ts';
import * as ontologyEditsJson from './2026-11-28T1800-ontology-edits-json.ts';
import * as rateLimitWindowIndex from './2026-11-28T2310-rate-limit-window-index.ts';

// Listed explicitly (not read from the folder) so the set is fixed at build time.
// Kysely runs them in plain string order of their names: `<ISO date>.<n>-<what>` for the first
// nine of a day (one digit), then `<ISO date>T<hhmm>-<what>` ('T' sorts after '.').
export const migrations: Record<string, Migration> = {
  '2026-11-22.1-foundation': foundation,
  '2026-11-22.2-identity': identity,
  '2026-11-22.3-apps': apps,
  '2026-11-22.4-outbox': outbox,
  '2026-11-22.5-security-events': securityEvents,
  '2026-11-22.6-blob-store': blobStore,
  '2026-11-22.7-hosting': hosting,
  '2026-11-22.8-app-host-sessions': appHostSessions,
  '2026-11-22.9-sharing': sharing,
  '2026-11-22T2100-company-initialization': companyInitialization,
  '2026-11-22T2115-version-files-by-blob': versionFilesByBlob,
  '2026-11-22T2145-app-log': appLog,
  '2026-11-22T2150-usage': usage,
  '2026-11-22T2200-ontology': ontology,
  '2026-11-22T2210-mcp-oauth': mcpOAuth,
  '2026-11-22T2220-app-workflows': appWorkflows,
  '2026-11-22T2230-performance': performance,
  '2026-11-22T2240-ontology-actions': ontologyActions,
  '2026-11-22T2250-ontology-sql': ontologySql,
  '2026-11-22T2255-ontology-subscriptions': ontologySubscriptions,
  '2026-11-25T0010-ontology-sql-budgets': ontologySqlBudgets,
  '2026-11-25T0050-ticket-role': ticketRole,
  '2026-11-25T0060-credential-sources': credentialSources,
  '2026-11-25T0070-member-invitations': memberInvitations,
  '2026-11-25T0130-online-versions': onlineVersions,
  '2026-11-25T0140-ticket-grant-source': ticketGrantSource,
  '2026-11-25T0150-sql-role-lifecycle': sqlRoleLifecycle,
  '2026-11-25T0160-ticket-renewals': ticketRenewals,
  '2026-11-27T0200-provisioning-moves': provisioningMoves,
  '2026-11-27T0200-provisioning-replacements': provisioningReplacements,
  '2026-11-27T0300-company-shares': companyShares,
  '2026-11-27T0400-groups': groups,
  '2026-11-27T0500-markings': markings,
  '2026-11-27T0800-object-security': objectSecurity,
  '2026-11-27T0900-account-attributes': accountAttributes,
  '2026-11-27T1200-workflow-run-temporal-run-id': workflowRunTemporalRunId,
  '2026-11-27T1300-open-decisions': openDecisions,
  '2026-11-27T1400-media-sets': mediaSets,
  '2026-11-27T1500-evolve': evolve,
  '2026-11-28T0050-unlogged-rate-limits': unloggedRateLimits,
  '2026-11-28T0100-media-transformations': mediaTransformations,
  '2026-11-28T0200-workshop-modules': workshopModules,
  '2026-11-28T0300-cameras': cameras,
  '2026-11-28T0400-data-pipelines': dataPipelines,
  '2026-11-28T0500-media-uploads': mediaUploads,
  '2026-11-28T0600-modeling': modeling,
  '2026-11-28T0700-media-upload-assembly': mediaUploadAssembly,
  '2026-11-28T0800-attachments': attachments,
  '2026-11-28T0900-automations': automations,
  '2026-11-28T1100-streams': streams,
  '2026-11-28T1200-blob-sweep': blobSweep,
  '2026-11-28T1300-ontology-history-checks': ontologyHistoryChecks,
  '2026-11-28T1700-media-composites': mediaComposites,
  '2026-11-28T1800-ontology-edits-json': ontologyEditsJson,
  '2026-11-28T2310-rate-limit-window-index': rateLimitWindowIndex,
};
