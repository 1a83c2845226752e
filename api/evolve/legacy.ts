import type { z } from 'zod';
import { legacyEvolveIds } from '../../domain/policy/index.ts';
import { Slug } from '../../schemas/evolve.ts';
import type { AnyRoute } from '../http/route.ts';

// Versioning 6: the old `/api/v1/developer/improve/{namespace}/…` paths and the earlier per-app
// `/api/v1/developer/evolve/{namespace}/{slug}/…` paths answer exactly what their new path
// answers (the same handler, the same access row), with `Deprecation` and a `Link` to the new path.

const NEW_BASE = '/api/v1/developer/evolve/{namespace}';
/** Since when the legacy paths are deprecated (RFC 9745 `Deprecation: @<seconds>`): this release. */
export const EVOLVE_LEGACY_SINCE = new Date('2026-11-27T00:00:00Z');

type Strict = z.ZodObject;

/** The legacy path of a new one: `improve` for `evolve`, or the app's slug after the namespace. */
export function legacyPaths(path: string, slugIn: 'query' | 'body' | 'path' | 'id'): { improve: string; bySlug: string } {
  const rest = path.slice(NEW_BASE.length);
  return {
    improve: path.replace('/developer/evolve/', '/developer/improve/'),
    bySlug: `${NEW_BASE}/{slug}${slugIn === 'path' ? rest.replace('/apps/{slug}', '') : rest}`,
  };
}

/** The input with the app named in the path put where the new path takes it (its query or body). */
function withSlug<I extends { params: unknown; query: unknown; body: unknown }>(input: I, slugIn: string): I {
  const slug = (input.params as { slug: string }).slug;
  if (slugIn === 'query') return { ...input, query: { ...(input.query as object), slug } };
  if (slugIn === 'body') return { ...input, body: { ...(input.body as object), slug } };
  return input;
}

export function legacyEvolveRoutes(routes: readonly { route: AnyRoute; slugIn: 'query' | 'body' | 'path' | 'id' }[]): AnyRoute[] {
  return routes.flatMap(({ route, slugIn }) => {
    const paths = legacyPaths(route.path, slugIn);
    const [improveId, bySlugId] = legacyEvolveIds(route.operationId) as [string, string];
    const deprecated = { successor: route.path, since: EVOLVE_LEGACY_SINCE };
    const improve: AnyRoute = { ...route, path: paths.improve, operationId: improveId, deprecated };
    const withoutSlug = (schema: unknown) => (schema as Strict).omit({ slug: true });
    const bySlug: AnyRoute = {
      ...route,
      path: paths.bySlug,
      operationId: bySlugId,
      deprecated,
      params: slugIn === 'path' ? route.params : (route.params as Strict).extend({ slug: Slug }),
      ...(slugIn === 'query' ? { query: withoutSlug(route.query) } : {}),
      ...(slugIn === 'body' ? { body: withoutSlug(route.body) } : {}),
      ...(route.prepare ? { prepare: (input) => route.prepare!(withSlug(input, slugIn)) } : {}),
      handler: (input) => route.handler(withSlug(input, slugIn)),
    };
    return [improve, bySlug];
  });
}
