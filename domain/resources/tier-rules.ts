import { DomainError } from '../errors.ts';
import { type ResourceKind, type ResourceRecord, type Tier, tierRank } from './kind.ts';

/** Rule 3: the internet tier (and an internet grant) only on kinds with an anonymous read entry; 422 otherwise. */
export function assertInternetAllowed(kind: ResourceKind, resource: ResourceRecord): void {
  if (!kind.anonymousRead) {
    throw new DomainError('tier_unsupported', `A ${resource.kind} cannot be opened to the internet.`, { details: { kind: resource.kind } });
  }
}

/** Rules 3 and 5: a tier the kind supports and no narrower than the resource's own setting (409). */
export function assertTierAllowed(kind: ResourceKind, resource: ResourceRecord, tier: Tier): void {
  if (tier === 'internet') assertInternetAllowed(kind, resource);
  if (tierRank(tier) < tierRank(resource.floor)) {
    throw new DomainError('conflict', `This ${resource.kind}'s own setting is ${resource.floor}; ${tier} is narrower.`, {
      details: { floor: resource.floor, tier },
    });
  }
}
