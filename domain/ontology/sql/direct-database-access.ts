import type { DbOrTrx } from '../../db/index.ts';
import type { Clock } from '../../deps.ts';
import { DomainError } from '../../errors.ts';
import type { Principal } from '../../principal.ts';
import { openOntology } from '../data-access.ts';

// `.../database/sync` and `.../database/credentials` (spec G, paths only): decided not to offer
// (409 database_access_unavailable with the reason: a refusal by design, never a 5xx).
//
// Credentials: a PostgreSQL login for a BI tool would read the object tables without the SQL gate,
// and the gate is where tenant isolation and the data layer's rules live for SQL: object security
// policies and markings are applied by rewriting each table reference (policed-references.ts), the
// parser refuses functions off its allowlist (pg_sleep, advisory locks, pg_stat_activity, large
// objects), and per-company concurrency, rate and size caps bound what one company costs the others.
// A login granted SELECT on the tables would see rows its policies hide and could slow every
// company; it would also need the service's database reachable from outside. So none is issued.
//
// Sync: ontology SQL reads the live tables in the service's database, so there is no copy to bring
// up to date (an edit is visible to the next query).
//
// Both still pass the policy first: a caller that cannot read the ontology gets its 404, as on
// `GET .../database`.

const REASONS = {
  credentials:
    'Direct PostgreSQL logins are not issued: they would bypass the SQL gate, which applies object security policies and markings, ' +
    'refuses functions off its allowlist and bounds each company’s load. Use POST /api/v1/sqlQueries/executeOntology (a BI tool can call it over HTTP).',
  sync: 'There is no database copy to sync: ontology SQL reads the live object types, so every committed edit is visible to the next query.',
} as const;

export async function refuseDirectDatabaseAccess(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  ontology: string,
  what: keyof typeof REASONS,
): Promise<never> {
  const open = await openOntology(deps, principal, ontology);
  throw new DomainError('database_access_unavailable', REASONS[what], {
    details: { ontology: open.ontology.cellId, reason: what === 'credentials' ? 'gate_bypass' : 'live_tables' },
  });
}
