import { exportInput } from '../../schemas/app-surface.ts';
import type { QueryExport } from '../../schemas/manifest/exports.ts';
import { issuesToProblems, reportedProblems } from '../../schemas/problems.ts';
import { exportQuery } from '../app-workflows/index.ts';
import type { HostedApp, HostedVersion } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { searchObjects } from '../ontology/index.ts';
import type { Principal } from '../principal.ts';

/** The export an API name calls in this version, or 404. */
export function findApi(version: HostedVersion, name: string): QueryExport {
  const item = version.manifest.exports.find((e) => e.name === name);
  if (!item) throw new DomainError('not_found', `This app has no API ${name}.`, { details: { api: name } });
  return item;
}

/**
 * Runs one API of a version the caller reached (reachApp): the input is checked against the
 * export's declared parameters (400 with each path), then the query reads the company's ontology
 * as the caller, with the caller's data access (types the caller may not read do not exist).
 */
export async function runApi(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  reached: { app: HostedApp; version: HostedVersion },
  name: string,
  input: unknown,
): Promise<{ data: Record<string, unknown>[] }> {
  const item = findApi(reached.version, name);
  const parsed = exportInput(item).safeParse(input ?? {});
  if (!parsed.success)
    throw new DomainError('invalid_payload', undefined, { details: reportedProblems(issuesToProblems(parsed.error.issues, 'input')) });
  const page = await searchObjects(deps, principal, {
    ontology: reached.app.namespace,
    objectType: item.type,
    request: await exportQuery(item, parsed.data as Record<string, unknown>),
  });
  return { data: page.data };
}
