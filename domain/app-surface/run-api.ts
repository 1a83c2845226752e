import { exportInput } from '../../schemas/app-surface.ts';
import type { QueryExport } from '../../schemas/manifest/exports.ts';
import { issuesToProblems, reportedProblems } from '../../schemas/problems.ts';
import { DomainError } from '../errors.ts';
import type { HostedVersion } from '../hosting/repository.ts';

/** The export an API name calls in this version, or 404. */
export function findApi(version: HostedVersion, name: string): QueryExport {
  const item = version.manifest.exports.find((e) => e.name === name);
  if (!item) throw new DomainError('not_found', `This app has no API ${name}.`, { details: { api: name } });
  return item;
}

/**
 * Runs one API of a version the caller reached (reachApp): the input is checked against the
 * export's declared parameters first (400 with each path). Query exports read objects of the
 * data layer (issue 15), which this build does not include yet: they answer 503 until it lands.
 */
export async function runApi(version: HostedVersion, name: string, input: unknown): Promise<unknown> {
  const item = findApi(version, name);
  const parsed = exportInput(item).safeParse(input ?? {});
  if (!parsed.success)
    throw new DomainError('invalid_payload', undefined, { details: reportedProblems(issuesToProblems(parsed.error.issues, 'input')) });
  throw new DomainError(
    'service_unavailable',
    `${name} reads ${item.type} objects from the data layer, which this service does not offer yet.`,
    {
      details: { api: name, type: item.type },
    },
  );
}
