// What the domain asks the long-running processes to do, by business key. The Temporal adapter
// (worker/outbox-relay.ts) turns each topic into a workflow start or signal with a workflow id
// derived from the key, so a repeated delivery is harmless.

export interface OutboxEvents {
  /** A device login began: its expiry clock must run. */
  'device-login.started': { expiresAt: string };
  /** A device login ended early (denied, or its key redeemed): the clock may stop. */
  'device-login.closed': { reason: 'denied' | 'redeemed' };
  /** An operator asked for a provisioning run (key: the request id); started or joined by workflow id. */
  'company-init.requested': { cellId: string; part: 'all' | 'cloud-instance' | 'folders' | 'agent-profiles' };
  /** An app's production channel moved (key: the app id): its schedule and change trigger follow. */
  'app-workflows.changed': { appId: string };
  /** An execute asked for a workflow run (key: the run id, recorded before the start). */
  'app-workflow.run': { appId: string; runId: string };
  /** Objects changed (key: the edit's operation id): changes `fromSeq`..`toSeq` of ontology_changes, of these object types (apiNames). */
  'ontology.changed': { companyId: string; objectTypes: string[]; fromSeq: number; toSeq: number };
  /** A build was asked for (key: the build id): its workflow runs the jobs. */
  'data-build.requested': { buildId: string; companyId: string };
  /** A build was cancelled (key: the build id): its run is cancelled if it runs. */
  'data-build.cancelled': { buildId: string };
  /** A sync's schedule was set or the sync deleted (key: the sync id): its Temporal Schedule follows. */
  'data-sync.changed': { syncId: string };
  /** A developer asked for the platform data source's sync (key: the request id): the company's run starts or is joined. */
  'platform-sync.requested': { companyId: string };
  /** An automation was created, changed, enabled, disabled or deleted (key: its id): its workflow and schedule follow. */
  'automation.changed': { automationId: string };
  /** An app's world generation was accepted and its credits counted (key: the generation id): its workflow runs the provider. */
  'world-generation.requested': { generationId: string; appId: string };
  /** An upload session was completed (key: the upload id): its assembly workflow streams the parts into one item and attaches it. */
  'media-upload.completing': { uploadId: string; companyId: string };
  /** People were given a license or asked for their invitation again (key: a new id): their emails go out after the commit. */
  'members.invited': { companyId: string; accountIds: string[]; baseUrl: string };
}

export type OutboxTopic = keyof OutboxEvents;

export type OutboxEvent = { [T in OutboxTopic]: { topic: T; key: string; payload: OutboxEvents[T] } }[OutboxTopic];
