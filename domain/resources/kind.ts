import type { DbOrTrx } from '../db/index.ts';

/** The openness tiers, narrowest first (spec Generic resource access). */
export const TIERS = ['private', 'group', 'public', 'internet'] as const;
export type Tier = (typeof TIERS)[number];
export const tierRank = (tier: Tier) => TIERS.indexOf(tier);

/** One resource as access control sees it. */
export interface ResourceRecord {
  rid: string;
  /** The registered kind's name. */
  kind: string;
  title: string;
  /** The owning company (null: platform-owned, e.g. official apps). */
  companyId: string | null;
  cellId: string | null;
  /** The account that created it: one of its Owners (rule 1). */
  createdBy: string | null;
  /** The resource's own setting: a narrower tier is refused with 409 (rule 5). */
  floor: Tier;
  /** The resource whose grants it inherits (rule 4); its own grants only add. */
  parent: string | null;
}

/**
 * A kind of resource (spec resource identifier shapes). Registering a kind is one entry in
 * `RESOURCE_KINDS` (registry.ts): its identifier prefix, whether it has an anonymous read entry
 * (the internet tier, rule 3), and how to find and list its resources.
 */
export interface ResourceKind {
  name: string;
  /** `ri.<service>.svc.<type>.`; the rest of the identifier is the kind's own id. */
  prefix: string;
  /** Files, apps and the organization's applications: the internet tier applies (rule 3). */
  anonymousRead: boolean;
  find(db: DbOrTrx, id: string): Promise<ResourceRecord | undefined>;
  /** The kind's resources owned by these companies (for listings). */
  listOf(db: DbOrTrx, companyIds: readonly string[]): Promise<ResourceRecord[]>;
}
