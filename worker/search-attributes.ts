import { type Client, isGrpcServiceError } from '@temporalio/client';
import { SVC_SEARCH_ATTRIBUTES } from '../workflows/contract.ts';

// The custom search attributes of svc's runs and schedules (schemas/workflow-keys.ts: company, app,
// kind, version, svc's run id, provisioning part): typed, so the Web UI and `temporal workflow
// list` filter by them (`SvcCellId = 'cell-north'`, `SvcRunId = 'wfr_…'`). A start may set only
// attributes the server knows, so they are registered at worker start, before the outbox relay
// starts any run.

/** The company (its cell id) a run belongs to. */
export const SVC_CELL_ID = SVC_SEARCH_ATTRIBUTES.cellId;
/** The provisioning part the run performs: all, cloud-instance, folders or agent-profiles. */
export const SVC_PROVISIONING_PART = SVC_SEARCH_ATTRIBUTES.provisioningPart;

/** temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD (the proto package is not a dependency of ours). */
const INDEXED_KEYWORD = 2;
/** gRPC status ALREADY_EXISTS. */
const ALREADY_EXISTS = 6;
const SVC_ATTRIBUTES = Object.values(SVC_SEARCH_ATTRIBUTES);

/**
 * Registers svc's search attributes in `namespace` when the server lacks them; idempotent, so
 * every worker start calls it. A server that already has one (another worker won the race)
 * answers ALREADY_EXISTS, which counts as done. Answers the names it added.
 */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const operator = client.connection.operatorService;
  const known = (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
  const missing = SVC_ATTRIBUTES.filter((k) => known[k.name] === undefined);
  if (!missing.length) return [];
  try {
    await operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_KEYWORD])) });
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === ALREADY_EXISTS)) throw err;
  }
  return missing.map((k) => k.name);
}
