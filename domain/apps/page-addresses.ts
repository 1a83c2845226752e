import type { PublicAddresses } from '../deps.ts';
import { PUBLIC_NAMESPACE } from '../policy/index.ts';

/** Test and production addresses of an app, and the generated pages under each. */
export function pageAddresses(addresses: PublicAddresses, namespace: string, slug: string, skillNames: readonly string[]) {
  const tree = namespace === PUBLIC_NAMESPACE ? `apps/${slug}` : `${namespace}/apps/${slug}`;
  const under = (base: string) => {
    const address = `${base}/${tree}`;
    return {
      address,
      about: `${address}/about`,
      aboutMarkdown: `${address}/about.md`,
      skills: skillNames.map((name) => `${address}/skills/${name}/SKILL.md`),
    };
  };
  return { test: under(addresses.developerBase), production: under(addresses.productionBase) };
}

/** The app card page for the company's developers: in the developer tree, next to the test version's `about`. */
export const cardAddress = (addresses: PublicAddresses, namespace: string, slug: string) =>
  `${pageAddresses(addresses, namespace, slug, []).test.address}/card`;
