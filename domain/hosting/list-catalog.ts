import { catalogRows, pageAddresses } from '../apps/index.ts';
import type { Channel, DbOrTrx } from '../db/index.ts';
import type { PublicAddresses } from '../deps.ts';

export interface CatalogEntry {
  slug: string;
  title: string;
  summary: string;
  version: string;
  address: string;
  about: string;
}

/** The apps of one namespace (`public`: the official catalog) that have a version in the channel. */
export async function listCatalog(db: DbOrTrx, addresses: PublicAddresses, namespace: string, channel: Channel): Promise<CatalogEntry[]> {
  const rows = await catalogRows(db, namespace, channel);
  return rows.map((r) => {
    const manifest = r.manifest as { title?: string; summary?: string };
    const pages = pageAddresses(addresses, namespace, r.slug, [])[channel];
    return {
      slug: r.slug,
      title: manifest.title ?? r.slug,
      summary: manifest.summary ?? '',
      version: r.version,
      address: pages.address,
      about: pages.about,
    };
  });
}
