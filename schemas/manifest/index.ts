export type { Problem } from '../problems.ts';
export { formatPath, issuesToProblems } from '../problems.ts';
export { durationSeconds } from './duration.ts';
export { type Evolve, SLOT_PATTERN, slotName } from './evolve.ts';
export type { QueryExport } from './exports.ts';
export { MANIFEST_SCHEMA_PATH, manifestJsonSchema, WORKFLOW_SCHEMA_PATH, workflowJsonSchema } from './json-schema.ts';
export type { Limits } from './limits.ts';
export { LIMIT_DEFAULTS, LIMIT_MAXIMUMS, limitsAboveDefault } from './limits.ts';
export type { Manifest, ManifestInput } from './manifest.ts';
export {
  CDN_HOSTS,
  LEGACY_MANIFEST_FILE_NAME,
  MANIFEST_FILE_NAME,
  MANIFEST_FILE_NAMES,
  manifestSchema,
  NAMESPACE_PATTERN,
  VERSION_PATTERN,
} from './manifest.ts';
export type { ParseManifestResult } from './parse-manifest.ts';
export { parseManifest, salvageManifest } from './parse-manifest.ts';
export { CELL_ID_PATTERN, SLUG_PATTERN } from './patterns.ts';
export type { AcceptedSdkName, SdkName } from './sdk.ts';
export { ACCEPTED_SDK_NAMES, LEGACY_SDK_NAMES, normalizeSdkList, normalizeSdkName, SDK_NAMES } from './sdk.ts';
export type { Workflow, WorkflowStep } from './workflow.ts';
export { EXPRESSION_PREFIX } from './workflow.ts';
