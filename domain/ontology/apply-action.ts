import { sql } from 'kysely';
import type { z } from 'zod';
import { ATTACHMENT_LIMITS, AttachmentRid } from '../../schemas/attachments.ts';
import type { OntologyObject } from '../../schemas/ontology.ts';
import type {
  ActionEdits,
  ActionValidation,
  ApplyActionBatchRequest,
  ApplyActionRequest,
  ValueSource,
} from '../../schemas/ontology-actions.ts';
import { writeLogRecords } from '../app-log/index.ts';
import { linkableAttachment } from '../attachments/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { ownValue } from '../own-keys.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { type ActingApp, findActingApp } from './acting-app.ts';
import { holds } from './action-criteria.ts';
import { type ActionTypeRecord, findActionTypeRecord } from './action-types.ts';
import { assertNotMarkedOut, mayRun, type OpenOntology, openOntology } from './data-access.ts';
import { changeVerb, countLinkEdits, linkEditsPart, summaryLine } from './log-summary.ts';
import { selectObjects, toApiObject } from './objects.ts';
import { valueProblem } from './property-values.ts';
import type { ObjectTypeRecord } from './repository.ts';
import { type Edit, type ObjectChange, type PrimaryKey, writeEdits } from './write-edits.ts';

// Running actions (Foundry applyAction / applyActionBatch): rev checks, then validation of the
// parameters and submission criteria over the objects as locked, then the edit templates through
// the one writer, an action/<Action> record in the acting app's log.

/** The call of an action's writeback webhook (the connectivity capability makes it; the composition root passes it in). */
export type Writeback = (call: {
  companyId: string;
  connection: string;
  timeoutMs: number;
  payload: Record<string, unknown>;
}) => Promise<void>;
/** `writeback`: 'dry-run' skips the call (a dry run never reaches a source system); absent, an action with a webhook fails closed. */
type Deps = { db: DbOrTrx; clock: Clock; writeback?: Writeback | 'dry-run' | undefined };
type ApplyRequest = z.output<typeof ApplyActionRequest>;
type BatchRequest = z.output<typeof ApplyActionBatchRequest>;
type Run = { parameters: Record<string, unknown>; ifRev?: Record<string, number> | undefined };

export interface ActionCaller {
  principal: Principal;
  /** The app named by the request (`x-svc-app: <namespace>/<slug>`); a ticket acts through its own app. */
  app: { namespace: string; slug: string } | null;
}

/** The action type, if the caller may run it; any other does not exist for the caller. */
export async function runnableAction(deps: Deps, principal: Principal, ontology: string, apiName: string) {
  const open = await openOntology(deps, principal, ontology);
  const action = await findActionTypeRecord(deps.db, open.ontology.id, apiName);
  if (!action || !mayRun(open.access, apiName)) {
    throw new DomainError('action_type_not_found', `No action type ${apiName}.`, { details: { actionType: apiName } });
  }
  return { open, action };
}

interface Evaluated {
  validation: ActionValidation;
  values: Record<string, unknown>;
}

const keyDataType = (t: ObjectTypeRecord) => t.properties[t.primaryKey]!.dataType;

async function loadObject(db: DbOrTrx, open: OpenOntology, type: ObjectTypeRecord, key: PrimaryKey, lock: boolean) {
  let q = selectObjects(db, open.ontology, type).where(sql.ref(`o.${type.primaryKey}`), '=', key);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? toApiObject(type, row) : null;
}

/**
 * Checks one run: unknown parameters (422 action_invalid), `ifRev` (409 rev_mismatch, before any
 * validation, so a validate-only run reports it too), then each parameter and each submission
 * criterion. Objects are read FOR UPDATE when the run will execute, so what the criteria saw is
 * what the edits change.
 */
async function evaluate(deps: Deps, open: OpenOntology, action: ActionTypeRecord, run: Run, lock: boolean): Promise<Evaluated> {
  const { db } = deps;
  const params = action.definition.parameters;
  const unknown = Object.keys(run.parameters).filter((n) => !ownValue(params, n));
  if (unknown.length > 0) {
    throw new DomainError('action_invalid', `${action.apiName} has no parameter ${unknown.join(', ')}.`, {
      details: { errorName: 'UnknownParameter', parameters: unknown },
    });
  }
  const typeOf = (apiName: string) => open.types.find((t) => t.apiName === apiName)!;
  const objects = new Map<string, OntologyObject | null>();
  const reasons = new Map<string, string>();
  const values: Record<string, unknown> = Object.create(null);
  // Parameter names in order, so two runs lock the same objects in the same order.
  for (const name of Object.keys(params).sort()) {
    const def = params[name]!;
    const value = ownValue(run.parameters, name) ?? null;
    if (value === null) {
      if (def.required ?? true) reasons.set(name, 'is required');
      continue;
    }
    if (def.dataType.type === 'objectReference') {
      const type = typeOf(def.dataType.objectType);
      const why = valueProblem(keyDataType(type), value);
      if (why) {
        reasons.set(name, `must be the primary key of a ${type.apiName}: it ${why}`);
        continue;
      }
      const object = await loadObject(db, open, type, value as PrimaryKey, lock);
      objects.set(name, object);
      if (!object) reasons.set(name, `names no ${type.apiName}`);
    } else if (def.dataType.type === 'attachment') {
      const why = attachmentParameterProblem(await attachmentState(deps, open, value));
      if (why) reasons.set(name, why);
    } else {
      const why = valueProblem(def.dataType, value);
      if (why) reasons.set(name, why);
    }
    values[name] = value;
  }
  for (const [name, rev] of Object.entries(run.ifRev ?? {})) {
    if (ownValue(params, name)?.dataType.type !== 'objectReference') {
      throw new DomainError('action_invalid', `ifRev names ${name}, which is no objectReference parameter.`, {
        details: { errorName: 'InvalidIfRev', parameter: name },
      });
    }
    const current = objects.get(name)?.__rev ?? null;
    if (current !== rev) {
      throw new DomainError('rev_mismatch', `The object of ${name} is at revision ${current}, not ${rev}.`, {
        details: { parameter: name, currentRev: current },
      });
    }
  }
  const criteria = action.definition.submissionCriteria.map((c) => ({
    ...(c.failureMessage === undefined ? {} : { configuredFailureMessage: c.failureMessage }),
    result: holds(c.condition, { values, objects }) ? ('VALID' as const) : ('INVALID' as const),
  }));
  const parameters = Object.fromEntries(
    Object.entries(params).map(([name, def]) => {
      const reason = reasons.get(name);
      return [
        name,
        {
          result: reason ? ('INVALID' as const) : ('VALID' as const),
          required: def.required ?? true,
          evaluatedConstraints: [],
          ...(reason ? { reason: `${name} ${reason}.` } : {}),
        },
      ];
    }),
  );
  const valid = reasons.size === 0 && criteria.every((c) => c.result === 'VALID');
  return { validation: { result: valid ? 'VALID' : 'INVALID', submissionCriteria: criteria, parameters }, values };
}

/**
 * An attachment parameter's value is the attachment's rid (Foundry's): one of this company's,
 * uploaded within the hour or used already (attachment_not_found otherwise, as for a read), with
 * room for one more object. The writer checks the count again over all the run's edits.
 */
async function attachmentState(deps: Deps, open: OpenOntology, value: unknown) {
  if (!AttachmentRid.safeParse(value).success) return 'malformed' as const;
  return linkableAttachment(deps.db, open.ontology.companyId, value as string, deps.clock.now());
}

function attachmentParameterProblem(state: Awaited<ReturnType<typeof attachmentState>>): string | null {
  if (state === 'malformed') return 'must be an attachment rid (ri.attachments.main.attachment.<uuid>)';
  return state.links >= ATTACHMENT_LIMITS.objects
    ? `names an attachment linked to ${state.links} objects already (at most ${ATTACHMENT_LIMITS.objects})`
    : null;
}

/** The writer's edits from the action's templates; a value from an absent optional parameter is left out. */
function editsOf(action: ActionTypeRecord, values: Record<string, unknown>): Edit[] {
  const ABSENT = Symbol('absent');
  // An attachment parameter holds the rid; the property holds Foundry's {rid}.
  const parameterValue = (name: string) =>
    action.definition.parameters[name]?.dataType.type === 'attachment' && values[name] !== null ? { rid: values[name] } : values[name];
  const sourced = (s: ValueSource) => ('parameter' in s ? (s.parameter in values ? parameterValue(s.parameter) : ABSENT) : s.value);
  const assigned = (props: Record<string, ValueSource>) =>
    Object.fromEntries(
      Object.entries(props)
        .map(([n, s]) => [n, sourced(s)] as const)
        .filter(([, v]) => v !== ABSENT),
    );
  const out: Edit[] = [];
  for (const t of action.definition.edits) {
    if (t.type === 'createObject') out.push({ type: 'create', objectType: t.objectType, properties: assigned(t.properties) });
    else if (t.type === 'modifyObject' || t.type === 'deleteObject') {
      // Only valid runs get here: a required object parameter has its key; an absent optional one skips the edit.
      if (!(t.object in values)) continue;
      const primaryKey = values[t.object] as PrimaryKey;
      const ref = action.definition.parameters[t.object]!.dataType;
      const objectType = ref.type === 'objectReference' ? ref.objectType : '';
      out.push(
        t.type === 'modifyObject'
          ? { type: 'modify', objectType, primaryKey, properties: assigned(t.properties) }
          : { type: 'delete', objectType, primaryKey },
      );
    } else {
      const source = sourced(t.source);
      const target = sourced(t.target);
      if (source === ABSENT || target === ABSENT || source === null || target === null) continue;
      out.push({ type: t.type, linkType: t.linkType, source: source as PrimaryKey, target: target as PrimaryKey });
    }
  }
  return out;
}

function editsWire(edits: readonly Edit[], changes: readonly ObjectChange[]): ActionEdits {
  const out: ActionEdits['edits'] = [];
  const count = { addObject: 0, modifyObject: 0, deleteObject: 0, addLink: 0, deleteLink: 0 };
  for (const c of changes) {
    const type = !c.before && c.after ? 'addObject' : c.before && !c.after ? 'deleteObject' : c.before && c.after ? 'modifyObject' : null;
    if (!type) continue;
    count[type]++;
    out.push({ type, objectType: c.objectType, primaryKey: c.primaryKey });
  }
  for (const e of edits) {
    if (e.type !== 'addLink' && e.type !== 'removeLink') continue;
    const type = e.type === 'addLink' ? 'addLink' : 'deleteLink';
    count[type]++;
    out.push({ type, linkType: e.linkType, source: e.source, target: e.target });
  }
  return {
    type: 'edits',
    edits: out,
    addedObjectCount: count.addObject,
    modifiedObjectsCount: count.modifyObject,
    deletedObjectsCount: count.deleteObject,
    addedLinksCount: count.addLink,
    deletedLinksCount: count.deleteLink,
  };
}

/** One line for the app log: what the action did to which objects. */
function summaryOf(action: ActionTypeRecord, changes: readonly ObjectChange[], edits: readonly Edit[]): string {
  const verbs = changes.map((c) => `${changeVerb(c)} ${c.objectType} ${c.primaryKey}`);
  const parts = [...verbs, ...linkEditsPart(countLinkEdits(edits))];
  return summaryLine(`${action.definition.displayName ?? action.apiName}: ${parts.join('; ') || 'no change'}`);
}

/** Executes one valid run through the one writer and records it in the acting app's log. */
async function execute(
  deps: Deps,
  open: OpenOntology,
  action: ActionTypeRecord,
  caller: ActionCaller,
  app: ActingApp | null,
  runs: readonly Evaluated[],
  operationId: string,
) {
  const edits = runs.flatMap((r) => editsOf(action, r.values));
  assertNotMarkedOut(open, edits);
  const written = await writeEdits(deps.db, {
    companyId: open.ontology.companyId,
    accountId: caller.principal.account.id,
    operationId,
    actionTypeRid: action.rid,
    edits,
    at: deps.clock.now(),
  });
  // Objects only read (a link's two ends) are no change.
  const changed = written.objects.filter((c) => JSON.stringify(c.before) !== JSON.stringify(c.after));
  const wire = editsWire(edits, changed);
  // Written, not committed: a failed webhook throws, and the request's transaction takes everything back.
  const webhook = action.definition.writebackWebhook;
  if (webhook && deps.writeback !== 'dry-run') {
    if (!deps.writeback)
      throw new DomainError('webhook_failed', 'The writeback webhook cannot be called here.', { details: { reason: 'unavailable' } });
    await deps.writeback({
      companyId: open.ontology.companyId,
      connection: webhook.connection,
      timeoutMs: webhook.timeoutMs,
      payload: {
        actionType: action.apiName,
        actionTypeRid: action.rid,
        operationId,
        parameters: runs[0]!.values,
        edits: wire.edits,
        objects: changed.map((c) => ({ objectType: c.objectType, primaryKey: c.primaryKey, before: c.before, after: c.after })),
      },
    });
  }
  if (app) await writeLogRecords(deps.db, [logRecord(deps, app, caller, action, runs, changed, edits, operationId)]);
  return wire;
}

function logRecord(
  deps: Deps,
  app: ActingApp,
  caller: ActionCaller,
  action: ActionTypeRecord,
  runs: readonly Evaluated[],
  objects: readonly ObjectChange[],
  edits: readonly Edit[],
  operationId: string,
) {
  return {
    appId: app.appId,
    at: deps.clock.now(),
    kind: 'action' as const,
    source: 'service' as const,
    name: action.apiName,
    accountId: caller.principal.account.id,
    versionId: app.versionId,
    channel: app.channel,
    data: {
      operationId,
      actionTypeRid: action.rid,
      parameters: runs.length === 1 ? runs[0]!.values : runs.map((r) => r.values),
      objects: objects.map((o) => ({ objectType: o.objectType, primaryKey: o.primaryKey, before: o.before, after: o.after })),
      summary: summaryOf(action, objects, edits),
    },
  };
}

/** `POST .../actions/{action}/apply`: an INVALID run is answered (200) with its validation and writes nothing. */
export async function applyAction(deps: Deps, caller: ActionCaller, ontology: string, apiName: string, request: ApplyRequest) {
  authorize(caller.principal, 'ontology.apply', { ontology });
  const { open, action } = await runnableAction(deps, caller.principal, ontology, apiName);
  const app = await findActingApp(deps.db, caller.principal, caller.app, open.ontology.cellId, open.access);
  const executing = request.options.mode === 'VALIDATE_AND_EXECUTE';
  const run = await evaluate(deps, open, action, request, executing);
  if (!executing || run.validation.result === 'INVALID') return { validation: run.validation };
  const operationId = newId('op');
  const edits = await execute(deps, open, action, caller, app, [run], operationId);
  return { validation: run.validation, operationId, ...(request.options.returnEdits === 'ALL' ? { edits } : {}) };
}

/** `POST .../actions/{action}/applyBatch`: every run valid and executed in one transaction, or 422 action_invalid and nothing written. */
export async function applyActionBatch(deps: Deps, caller: ActionCaller, ontology: string, apiName: string, request: BatchRequest) {
  authorize(caller.principal, 'ontology.apply', { ontology });
  const { open, action } = await runnableAction(deps, caller.principal, ontology, apiName);
  if (action.definition.writebackWebhook) {
    throw new DomainError(
      'action_invalid',
      `${apiName} has a writeback webhook: it is applied one run at a time (apply), never in a batch.`,
      {
        details: { errorName: 'WritebackWebhookBatchApply', actionType: apiName },
      },
    );
  }
  const app = await findActingApp(deps.db, caller.principal, caller.app, open.ontology.cellId, open.access);
  const runs: Evaluated[] = [];
  for (const [index, run] of request.requests.entries()) {
    const evaluated = await evaluate(deps, open, action, run, true);
    if (evaluated.validation.result === 'INVALID') {
      throw new DomainError('action_invalid', `Request ${index} of the batch is not valid: nothing was applied.`, {
        details: { errorName: 'ActionValidationFailed', index, validation: evaluated.validation },
      });
    }
    runs.push(evaluated);
  }
  const operationId = newId('op');
  const edits = await execute(deps, open, action, caller, app, runs, operationId);
  return { operationId, ...(request.options.returnEdits === 'ALL' ? { edits } : {}) };
}
