import type { z } from 'zod';
import type { RegistryRow } from '../../schemas/app-surface.ts';
import { appRows, appSummaryOf } from '../apps/index.ts';
import type { DomainDeps } from '../deps.ts';
import { keyNamespaces } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { headline } from './describe-card.ts';
import { useLast7Days } from './use-last-7-days.ts';

/** GET /api/v1/developer/registry: one row per app of the key's company (and public, for platform staff). */
export async function listRegistry(deps: DomainDeps, principal: Principal): Promise<z.input<typeof RegistryRow>[]> {
  const rows = await appRows(deps.db, keyNamespaces(principal));
  const use = await useLast7Days(
    deps.db,
    rows.map((r) => r.id),
    deps.clock.now(),
  );
  return rows.map((row) => {
    const { latest, ...summary } = appSummaryOf(row);
    return {
      ...summary,
      latestBuild: latest.build,
      version: row.shownVersion,
      ...headline(row),
      use7d: use.get(row.id)!,
    };
  });
}
