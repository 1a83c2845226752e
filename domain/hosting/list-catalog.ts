import { cardAddress, catalogRows, pageAddresses } from '../apps/index.ts';
import { findCompany } from '../companies/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';
import { PUBLIC_NAMESPACE } from '../policy/index.ts';

export interface CatalogEntry {
  slug: string;
  title: string;
  summary: string;
  version: string;
  address: string;
  about: string;
  /** The card page, listed in the test catalog (its developers'). */
  card: string | null;
}

/** One app as a catalog lists it: its title, summary and version in the channel, and its addresses there. */
export function catalogEntry(
  addresses: PublicAddresses,
  app: { namespace: string; slug: string },
  channel: Channel,
  version: { version: string; manifest: unknown },
): CatalogEntry {
  const manifest = version.manifest as { title?: string; summary?: string };
  const pages = pageAddresses(addresses, app.namespace, app.slug, [])[channel];
  return {
    slug: app.slug,
    title: manifest.title ?? app.slug,
    summary: manifest.summary ?? '',
    version: version.version,
    address: pages.address,
    about: pages.about,
    card: channel === 'test' ? cardAddress(addresses, app.namespace, app.slug) : null,
  };
}

/**
 * The catalog of one namespace (`public`: the official one): whose it is (the company's name, null
 * for the official catalog) and the apps that have a version in the channel.
 */
export async function listCatalog(
  db: DbOrTrx,
  addresses: PublicAddresses,
  namespace: string,
  channel: Channel,
): Promise<{ company: string | null; entries: CatalogEntry[] }> {
  const company = namespace === PUBLIC_NAMESPACE ? null : (await findCompany(db, namespace)).name;
  const rows = await catalogRows(db, namespace, channel);
  return { company, entries: rows.map((r) => catalogEntry(addresses, { namespace, slug: r.slug }, channel, r)) };
}
