import { manifestSchema } from '../../schemas/manifest/index.ts';
import type { AgentRestrictions } from '../../schemas/ontology-actions.ts';
import { catalogRows, findHostedApp, loadVersion } from '../apps/index.ts';
import { findCompany, visitorOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import type { PrincipalCache } from '../keys/index.ts';
import { clearanceOf, markingsOnResources } from '../markings/index.ts';
import {
  agentMayRead,
  agentMayWrite,
  agentRestrictionsOf,
  appRoleOf,
  authorize,
  isDataDeveloperOf,
  NO_CLEARANCE,
  permissionsOf,
  satisfiesMarkings,
  ticketAdmits,
  withinAppMarkings,
} from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { clearedForApp, findAppGrants, grantsOf, principalsOf } from '../resources/index.ts';
import { policySubjectOf, withGates } from './object-security.ts';
import {
  findOntology,
  listObjectTypeRecords,
  type ObjectTypeRecord,
  type OntologyRecord,
  objectTypeRid,
  ontologyRid,
} from './repository.ts';

/** What one caller may do in one company's ontology (the data-layer design, "Who may do what"). */
export interface DataAccess {
  /** Define object and link types. */
  define: boolean;
  /** Create, modify and delete objects directly (developer edits and imports). */
  writeDirect: boolean;
  /** The object types (apiNames) the caller may read; anything else does not exist for it. */
  readTypes: 'all' | ReadonlySet<string>;
  /** The action types (apiNames) the caller may run. */
  runActions: 'all' | ReadonlySet<string>;
  /** Agent authors cannot write the main definition (branch_required). */
  author: 'human' | 'agent';
  /** The company's apps (slugs) the caller may open, and so act through (`x-svc-app`); absent: none. */
  openApps?: 'all' | ReadonlySet<string>;
  /** The object types the caller's markings hide from it (whatever its role): never written either. */
  markedOut?: ReadonlySet<string>;
}

const NOTHING: DataAccess = { define: false, writeDirect: false, readTypes: new Set(), runActions: new Set(), author: 'human' };
/** Reading these object types and nothing else (the anonymous visitor of an internet-tier app). */
export const readOnlyAccess = (types: readonly string[]): DataAccess => ({ ...NOTHING, readTypes: new Set(types) });
const EVERYTHING: DataAccess = { define: true, writeDirect: true, readTypes: 'all', runActions: 'all', author: 'human', openApps: 'all' };

type Company = { id: string; cellId: string };
type ObjectTypeRef = { id: string; apiName: string };

/**
 * Developers of the company (domain/policy isDeveloperOf: a developer key, a session of an account
 * with a developer license, a developer's ticket; platform staff by key or session) may do
 * everything. Everyone else reads the types and runs the actions their role allows in the
 * company's apps they may open (a ticket: its own app only, at the ticket's role), plus the object
 * types granted to them as resources (a grant on the ontology covers all its types).
 * `types`: the ontology's object types, for resolving grants.
 */
export async function dataAccess(
  deps: DataDeps,
  principal: Principal,
  company: Company,
  types: readonly ObjectTypeRef[] = [],
): Promise<DataAccess> {
  const access = await roleAccess(deps, principal, company, types);
  return access === NOTHING
    ? access
    : withinMarkings(deps, { accountId: principal.account.id, now: deps.clock.now() }, company, types, access);
}

export type DataDeps = { db: DbOrTrx; clock: Clock; principals?: PrincipalCache | undefined };

/**
 * Markings on top of roles (domain/policy satisfiesMarkings): an object type exists for the caller
 * only while it satisfies the type's markings and its ontology's (inherited); a marked ontology it
 * does not satisfy hides everything, definitions included. Nobody bypasses them, developers and
 * staff included. `caller` null: the anonymous visitor, cleared for nothing. Costs one query
 * when nothing is marked.
 */
export async function withinMarkings(
  deps: Omit<DataDeps, 'clock'>,
  caller: { accountId: string; now: Date } | null,
  company: { cellId: string },
  types: readonly ObjectTypeRef[],
  access: DataAccess,
): Promise<DataAccess> {
  const ontology = ontologyRid(company.cellId);
  const marked = await markingsOnResources(deps.db, [ontology, ...types.map((t) => objectTypeRid(t.id))]);
  if (marked.size === 0) return access;
  const clearance = caller === null ? NO_CLEARANCE : await clearanceOf(deps, caller.accountId, caller.now);
  const inherited = marked.get(ontology) ?? [];
  if (!satisfiesMarkings(clearance, inherited)) return NOTHING;
  const markedOut = new Set(
    types.filter((t) => !satisfiesMarkings(clearance, [...inherited, ...(marked.get(objectTypeRid(t.id)) ?? [])])).map((t) => t.apiName),
  );
  const readable = types.filter((t) => mayRead(access, t.apiName) && !markedOut.has(t.apiName)).map((t) => t.apiName);
  return { ...access, readTypes: new Set(readable), markedOut };
}

/** What the caller's role gives, before markings. */
async function roleAccess(deps: DataDeps, principal: Principal, company: Company, types: readonly ObjectTypeRef[]): Promise<DataAccess> {
  // A key acts for its one company; a ticket admits only its own app, so only that app's company.
  if (principal.kind === 'key' && principal.company.id !== company.id) return NOTHING;
  const restrictions = agentRestrictionsOf(principal);
  if (restrictions) return restrictedAccess(principal, restrictions);
  if (!ticketAdmits(principal, { namespace: company.cellId })) return NOTHING;
  if (isDataDeveloperOf(principal, company.id)) {
    return { ...EVERYTHING, author: authorOf(principal) };
  }
  const visitor = await visitorOf(deps.db, principal, deps.clock.now());

  const semantics: { types: readonly string[]; actions: readonly string[] }[] = [];
  const openApps = new Set<string>();
  const now = deps.clock.now();
  if (principal.kind === 'ticket') {
    // A ticket reads and runs what its role in its own app allows (a viewer: read only), while the
    // app's markings clear its visitor (a marking added since ends what the ticket may do).
    const { ticket } = principal;
    if (!(await clearedForApp(deps, { accountId: principal.account.id, now }, ticket))) return NOTHING;
    const may = permissionsOf(ticket.role, (await loadVersion(deps.db, ticket.versionId)).manifest.semantic);
    semantics.push({ types: may.read, actions: may.actions });
  } else {
    for (const row of await catalogRows(deps.db, company.cellId, 'production')) {
      const manifest = manifestSchema.parse(row.manifest);
      const target = { namespace: company.cellId, companyId: company.id, channel: 'production' as const, ...manifest.auth };
      let access = appRoleOf(visitor, target);
      // Shares only matter where the company rule alone refuses (restricted apps, outsiders).
      if (!access.allowed) {
        const app = await findHostedApp(deps.db, company.cellId, row.slug);
        if (app)
          access = appRoleOf(visitor, target, await findAppGrants(deps.db, { app, visitor, linkShareId: null, now: deps.clock.now() }));
      }
      // The app's markings bind as when it is opened: a marked app gives nothing to whom it does not clear.
      if (access.allowed)
        access = withinAppMarkings(
          access,
          await clearedForApp(deps, { accountId: principal.account.id, now: deps.clock.now() }, { ...target, slug: row.slug }),
        );
      if (access.allowed) {
        openApps.add(row.slug);
        const may = permissionsOf(access.role, manifest.semantic);
        semantics.push({ types: may.read, actions: may.actions });
      }
    }
  }
  const readTypes = new Set<string>();
  const runActions = new Set<string>();
  let allTypes = false;
  let allActions = false;
  for (const s of semantics) {
    for (const t of s.types) {
      if (t === '*') allTypes = true;
      else readTypes.add(t);
    }
    for (const a of s.actions) {
      if (a === '*') allActions = true;
      else runActions.add(a);
    }
  }
  if (!allTypes) {
    const mine = new Set(principalsOf(visitor));
    const byRid = new Map(types.map((t) => [objectTypeRid(t.id), t.apiName]));
    const grants = await grantsOf(deps.db, [ontologyRid(company.cellId), ...byRid.keys()]);
    for (const g of grants.filter((g) => mine.has(g.principal))) {
      const apiName = byRid.get(g.rid);
      if (apiName) readTypes.add(apiName);
      else allTypes = true;
    }
  }
  return {
    define: false,
    writeDirect: false,
    readTypes: allTypes ? 'all' : readTypes,
    runActions: allActions ? 'all' : runActions,
    author: authorOf(principal),
    openApps,
  };
}

/** An agent key or a developer key sent with `x-author: agent:<id>` writes as an agent. */
export const authorOf = (principal: Principal): DataAccess['author'] => (principal.kind === 'key' && principal.agent ? 'agent' : 'human');

/**
 * A restricted agent key (spec Authentication 7): its listed types when it may read, its listed
 * actions when it may write (the policy's agentMayRead / agentMayWrite), nothing else.
 */
function restrictedAccess(principal: Principal, r: AgentRestrictions): DataAccess {
  return {
    define: false,
    writeDirect: false,
    readTypes: new Set(agentMayRead(principal) ? r.objectTypes : []),
    runActions: new Set(agentMayWrite(principal) ? r.actionTypes : []),
    author: 'agent',
  };
}

export const mayRead = (access: DataAccess, apiName: string) => access.readTypes === 'all' || access.readTypes.has(apiName);
export const mayRun = (access: DataAccess, apiName: string) => access.runActions === 'all' || access.runActions.has(apiName);

/**
 * The company whose main definition the caller writes: developers only (403 otherwise), and never
 * an agent author, who writes to a branch (409 branch_required).
 */
export async function companyToDefine(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string) {
  const company = await findCompany(deps.db, namespace);
  authorize(principal, 'ontology.define', { namespace: company.cell_id });
  if (authorOf(principal) === 'agent') throw new DomainError('branch_required', 'Agent authors write definitions to a branch (?branch=).');
  return company;
}

/** An ontology as one caller sees it: its definitions and what the caller may do. */
export interface OpenOntology {
  ontology: OntologyRecord;
  access: DataAccess;
  /** Every object type of the ontology (readable or not: filter with `mayRead`), with the caller's security gates. */
  types: readonly ObjectTypeRecord[];
}

const ontologyNotFound = (ref: string) => new DomainError('ontology_not_found', `No ontology ${ref}.`, { details: { ontology: ref } });

/**
 * The ontology named by API name or RID, for a caller who may do something in it (define, read at
 * least one type or run at least one action); otherwise it does not exist for them (404 ontology_not_found).
 */
export async function openOntology(deps: DataDeps, principal: Principal, ref: string): Promise<OpenOntology> {
  const ontology = await findOntology(deps.db, ref);
  if (!ontology) throw ontologyNotFound(ref);
  const records = await listObjectTypeRecords(deps.db, ontology.id);
  const access = await dataAccess(deps, principal, { id: ontology.companyId, cellId: ontology.cellId }, records);
  // Security policies judge the caller (its clearance and attributes) per object: every read of these types applies their gates.
  const types = records.some((t) => t.security)
    ? withGates(records, await policySubjectOf(deps, principal.account.id, ontology.companyId, deps.clock.now()))
    : records;
  // Running a listed action is reason enough to reach the ontology, even with no readable type.
  const visible =
    access.define ||
    access.readTypes === 'all' ||
    access.runActions === 'all' ||
    access.runActions.size > 0 ||
    types.some((t) => mayRead(access, t.apiName));
  if (!visible) throw ontologyNotFound(ref);
  return { ontology, access, types };
}

/** A readable object type; any other is object_type_not_found (never forbidden: it does not exist for the caller). */
export function readableType(open: OpenOntology, apiName: string): ObjectTypeRecord {
  const type = open.types.find((t) => t.apiName === apiName);
  if (!type || !mayRead(open.access, apiName)) {
    throw new DomainError('object_type_not_found', `No object type ${apiName}.`, { details: { objectType: apiName } });
  }
  return type;
}

/** Edits (direct or an action's) never write a type the caller's markings hide from it: object_type_not_found, as on reads. */
export function assertNotMarkedOut(open: OpenOntology, edits: readonly ({ objectType: string } | { linkType: string })[]): void {
  for (const e of edits) {
    if ('objectType' in e && open.access.markedOut?.has(e.objectType)) {
      throw new DomainError('object_type_not_found', `No object type ${e.objectType}.`, { details: { objectType: e.objectType } });
    }
  }
}
