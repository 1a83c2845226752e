import type { Channel } from '../../domain/db/index.ts';
import type { PublicAddresses } from '../../domain/deps.ts';

/** The configured page bases, parsed. */
export interface PageBases {
  /** {base_url}'s host. */
  ownHost: string;
  trees: { channel: Channel; base: string; url: URL; prefix: string }[];
  /** The bases served on a host of their own (none in the default same-host set-up). */
  appHosts: URL[];
  /** True when no page or hand-off can be under `/api/`: every base on {base_url}'s host, none at or above `/api`. */
  apiOutsideTrees: boolean;
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
  const appHosts = trees.map((t) => t.url).filter((u) => u.host !== ownHost);
  const apiOutsideTrees = appHosts.length === 0 && trees.every((t) => !'/api/'.startsWith(`${t.prefix}/`) && !t.prefix.startsWith('/api/'));
  bases = { ownHost, trees, appHosts, apiOutsideTrees };
  parsed.set(addresses, bases);
  return bases;
}
