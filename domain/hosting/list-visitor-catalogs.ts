import { licensesOf } from '../companies/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';
import { isDeveloperOf } from '../policy/index.ts';
import type { Principal } from '../principal.ts';

export interface VisitorCatalog {
  /** The company's name. */
  company: string;
  production: string;
  /** The test catalog, for the company's developers only. */
  test: string | null;
}

/**
 * The company catalogs a visitor may open (spec Rules for B3): one per company they act for (a
 * key: its own company only), with the test catalog where they are a developer.
 */
export async function listVisitorCatalogs(db: DbOrTrx, addresses: PublicAddresses, principal: Principal): Promise<VisitorCatalog[]> {
  const licenses = await licensesOf(db, principal.account.id);
  const acting = principal.kind === 'key' ? licenses.filter((l) => l.companyId === principal.company.id) : licenses;
  return acting.map((l) => ({
    company: l.name,
    production: `${addresses.productionBase}/${l.cellId}/apps`,
    test: isDeveloperOf(principal, l.companyId) ? `${addresses.developerBase}/${l.cellId}/apps` : null,
  }));
}
