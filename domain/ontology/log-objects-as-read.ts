import type { LogEventView } from '../../schemas/app-log.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { type DataDeps, mayRead, type OpenOntology, openOntology } from './data-access.ts';
import { visibleState } from './object-security.ts';

// The app log's service records of data changes (`data.edit`, `data.import`, an action's record)
// carry the objects they changed, before and after. A reader of the log sees them as a read of the
// ontology would show them (the edits history's rule): an object of a type hidden from the reader
// (a marking), or hidden by its object policy in both states, is left out of the list; a hidden
// state is null; nulled properties are left out. The counts and summary line stay: they say how many
// objects an edit touched, never which. Apps' own records (source `app`) are theirs and untouched.

type State = Record<string, unknown> | null;
type LoggedObject = { objectType: string; primaryKey: unknown; before: State; after: State };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectsOf = (event: LogEventView): unknown[] | undefined =>
  event.source === 'service' && isRecord(event.data) && Array.isArray(event.data.objects) ? event.data.objects : undefined;

function asRead(open: OpenOntology | null, logged: unknown): LoggedObject | null {
  if (!isRecord(logged) || typeof logged.objectType !== 'string') return null;
  const type = open?.types.find((t) => t.apiName === logged.objectType);
  if (!open || !type || !mayRead(open.access, type.apiName)) return null;
  const before = visibleState(type, isRecord(logged.before) ? logged.before : null);
  const after = visibleState(type, isRecord(logged.after) ? logged.after : null);
  return before === null && after === null ? null : { objectType: type.apiName, primaryKey: logged.primaryKey, before, after };
}

/** The log records (of the namespace's apps) with the objects they carry as `principal` may read them. */
export async function logObjectsAsRead(
  deps: DataDeps,
  principal: Principal,
  namespace: string,
  events: readonly LogEventView[],
): Promise<LogEventView[]> {
  if (!events.some((e) => objectsOf(e) !== undefined)) return [...events];
  let open: OpenOntology | null = null;
  try {
    open = await openOntology(deps, principal, namespace);
  } catch (error) {
    // No ontology the reader may see (a marking hides it): none of its objects either.
    if (!(error instanceof DomainError && error.code === 'ontology_not_found')) throw error;
  }
  return events.map((e) => {
    const objects = objectsOf(e);
    if (objects === undefined) return e;
    return { ...e, data: { ...(e.data as object), objects: objects.flatMap((o) => asRead(open, o) ?? []) } };
  });
}
