import { type ModuleDefinition, type ModuleView, type VersionView, WORKSHOP_MODULE_RID_PREFIX } from '../../schemas/workshop.ts';
import type { DbOrTrx, ResourceRole } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize, can } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { callerRoleOn } from '../resources/index.ts';

export const moduleRid = (id: string) => `${WORKSHOP_MODULE_RID_PREFIX}${id}`;
const idOf = (rid: string) => rid.slice(WORKSHOP_MODULE_RID_PREFIX.length);

export const moduleRows = (db: DbOrTrx) =>
  db
    .selectFrom('workshop_modules as m')
    .innerJoin('companies as c', 'c.id', 'm.company_id')
    .select([
      'm.id',
      'm.name',
      'm.company_id',
      'm.published_version',
      'm.created_at',
      'c.cell_id',
      (eb) =>
        eb
          .selectFrom('workshop_module_versions as v')
          .whereRef('v.module_id', '=', 'm.id')
          .select((e) => e.fn.max('v.version').as('n'))
          .as('latest_version'),
    ]);
export type ModuleRow = Awaited<ReturnType<ReturnType<typeof moduleRows>['executeTakeFirstOrThrow']>>;

export interface OpenedModule {
  row: ModuleRow;
  role: ResourceRole;
  /** Editors and Owners see every version; Viewers the published one only. */
  seesDrafts: boolean;
}

type Deps = { db: DbOrTrx; clock: Clock };

/**
 * The module a rid names, once the policy lets the caller do `action` on it: no role (or no such
 * module) is workshop_module_not_found, a role too low is forbidden. `forUpdate` locks its row
 * (version numbering, publishing).
 */
export async function moduleFor(
  deps: Deps,
  principal: Principal,
  rid: string,
  action: 'workshop.read' | 'workshop.edit' | 'workshop.manage',
  opts: { forUpdate?: boolean } = {},
): Promise<OpenedModule> {
  const role = await callerRoleOn(deps.db, deps.clock, principal, rid);
  const subject = { rid, role };
  authorize(principal, action, subject);
  let q = moduleRows(deps.db).where('m.id', '=', idOf(rid));
  if (opts.forUpdate) q = q.forUpdate('m');
  const row = await q.executeTakeFirst();
  if (!row) throw new DomainError('workshop_module_not_found', `No application module ${rid}.`, { details: { moduleRid: rid } });
  return { row, role: role!, seesDrafts: can(principal, 'workshop.edit', subject) };
}

export function moduleView(opened: OpenedModule): ModuleView {
  const { row } = opened;
  return {
    rid: moduleRid(row.id),
    name: row.name,
    organization: row.cell_id,
    role: opened.role,
    latestVersion: opened.seesDrafts && row.latest_version !== null ? Number(row.latest_version) : null,
    publishedVersion: row.published_version,
    createdAt: row.created_at.toISOString(),
  };
}

const versionNotFound = (rid: string, version: number | undefined) =>
  new DomainError(
    'workshop_version_not_found',
    version === undefined ? `The module ${rid} has no published version yet.` : `The module ${rid} has no version ${version} you may open.`,
    { details: { moduleRid: rid, version: version ?? null } },
  );

/**
 * A version the caller may open: the one named (Editors and Owners: any; Viewers: the published
 * one only), else the published one, else (Editors and Owners) the latest.
 */
export async function versionFor(db: DbOrTrx, opened: OpenedModule, version: number | undefined): Promise<VersionView> {
  const { row } = opened;
  const rid = moduleRid(row.id);
  const wanted =
    version ?? row.published_version ?? (opened.seesDrafts && row.latest_version !== null ? Number(row.latest_version) : undefined);
  if (wanted === undefined || (!opened.seesDrafts && wanted !== row.published_version)) throw versionNotFound(rid, version);
  const v = await db
    .selectFrom('workshop_module_versions')
    .select(['version', 'definition', 'created_at', 'created_by'])
    .where('module_id', '=', row.id)
    .where('version', '=', wanted)
    .executeTakeFirst();
  if (!v) throw versionNotFound(rid, version);
  return versionView(row, v);
}

export function versionView(
  row: Pick<ModuleRow, 'published_version'>,
  v: { version: number; definition: unknown; created_at: Date; created_by: string | null },
): VersionView {
  return {
    version: v.version,
    published: v.version === row.published_version,
    createdAt: v.created_at.toISOString(),
    createdBy: v.created_by,
    definition: v.definition as ModuleDefinition,
  };
}

/** Stores the next numbered version (the caller holds the module's row lock). */
export async function insertVersion(db: DbOrTrx, moduleId: string, definition: ModuleDefinition, by: string): Promise<number> {
  const last = await db
    .selectFrom('workshop_module_versions')
    .select((eb) => eb.fn.max('version').as('n'))
    .where('module_id', '=', moduleId)
    .executeTakeFirst();
  const version = Number(last?.n ?? 0) + 1;
  await db
    .insertInto('workshop_module_versions')
    .values({ module_id: moduleId, version, definition: JSON.stringify(definition), created_by: by })
    .execute();
  return version;
}
