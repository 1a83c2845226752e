import type { Channel } from '../../domain/db/index.ts';
import type { PublicAddresses } from '../../domain/deps.ts';

/** The configured page bases, parsed. */
export interface PageBases {
  /** {base_url}'s host. */
  ownHost: string;
  trees: { channel: Channel; base: string; url: URL; prefix: string }[];
  /** The bases served on a host of their own (none in the default same-host set-up). */
  appHosts: URL[];
}

// Every request asks whether it is for a page tree: parse the addresses once per value of them
// (they change only when the service learns its port).
const parsed = new WeakMap<PublicAddresses, PageBases>();

export function pageBases(addresses: PublicAddresses): PageBases {
  let bases = parsed.get(addresses);
  if (bases) return bases;
  const ownHost = new URL(addresses.baseUrl).host;
  const trees = (
    [
      ['production', addresses.productionBase],
      ['test', addresses.developerBase],
    ] as const
  ).map(([channel, base]) => {
    const url = new URL(base);
    return { channel, base, url, prefix: url.pathname.replace(/\/$/, '') };
  });
  bases = { ownHost, trees, appHosts: trees.map((t) => t.url).filter((u) => u.host !== ownHost) };
  parsed.set(addresses, bases);
  return bases;
}
