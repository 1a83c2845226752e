// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { APP_HEADER, parseAppHeader } from './acting-app.ts';
export { aggregateObjectSet } from './aggregate-object-set.ts';
export { aggregate, aggregateObjects } from './aggregate-objects.ts';
export { applyAction, applyActionBatch, type Writeback } from './apply-action.ts';
export { createBranch } from './branches/create-branch.ts';
export { createProposal, listProposals } from './branches/create-proposal.ts';
export { type Decision, decideProposal } from './branches/decide-proposal.ts';
export { getBranch, listBranches } from './branches/list-branches.ts';
export { sweepBranches } from './branches/sweep-branches.ts';
export { writeToBranch } from './branches/write-to-branch.ts';
export { createTemporaryObjectSet } from './create-temporary-object-set.ts';
export { defineActionTypes } from './define-action-types.ts';
export { defineObjectTypes, definePlatformTypes } from './define-object-types.ts';
export { editObjects } from './edit-objects.ts';
export { getObject } from './get-object.ts';
export { getObjectSet } from './get-object-set.ts';
export { getObjectType } from './get-object-type.ts';
export { getObjectTypeSecurity } from './get-object-type-security.ts';
export { getOntology } from './get-ontology.ts';
export { importObjects } from './import-objects.ts';
export { getActionType, listActionTypes } from './list-action-types.ts';
export { listEditsHistory } from './list-edits-history.ts';
export { getOutgoingLinkType, listOutgoingLinkTypes } from './list-link-types.ts';
export { getLinkedObject, listLinkedObjects } from './list-linked-objects.ts';
export { listDefinitions, listObjectTypes } from './list-object-types.ts';
export { listObjects } from './list-objects.ts';
export { listOntologies } from './list-ontologies.ts';
export { loadObjectSet } from './load-object-set.ts';
export { logObjectsAsRead } from './log-objects-as-read.ts';
export { matchObjects } from './match-objects.ts';
export {
  heldMediaReference,
  type MediaProperty,
  type ObjectMediaInput,
  openMediaProperty,
  setMediaProperty,
} from './media-properties.ts';
export { objectTable } from './object-tables.ts';
export { isPlatformType, PLATFORM_TYPES, type PlatformEntity } from './platform-types.ts';
export { valueProblem } from './property-values.ts';
export { getObjectAttachment, readObjectAttachment } from './read-object-attachment.ts';
export { describePublicApp, getPublicAppObject, listPublicAppObjects } from './read-public-app.ts';
export { findObjectTypeRecord, findOntology, findOntologyOfCompany } from './repository.ts';
export { objectPage, searchObjects } from './search-objects.ts';
export { setObjectTypeSecurity } from './set-object-type-security.ts';
export { describeOntologyDatabase } from './sql/describe-ontology-database.ts';
export { refuseDirectDatabaseAccess } from './sql/direct-database-access.ts';
export { executeOntologySql } from './sql/execute-ontology-sql.ts';
export { SqlGate } from './sql/sql-gate.ts';
export {
  type Change,
  type ChangeBatch,
  type ChangeHub,
  type ChangeListener,
  startChangeHub,
  withStates,
} from './subscriptions/change-hub.ts';
export { changesFor, type OpenedSubscriptions, subscribeObjectSets } from './subscriptions/subscribe-object-sets.ts';
export { trimChanges } from './subscriptions/trim-changes.ts';
export { testObjectSecurity } from './test-object-security.ts';
export { storedKeys, upsertObjects } from './upsert-objects.ts';
export { writeEdits } from './write-edits.ts';
