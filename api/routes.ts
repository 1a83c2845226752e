import type { AnyRoute } from './http/route.ts';
import { healthRoute, openApiRoute } from './system/routes.ts';

/** Every mounted route. Each capability contributes its list here. */
export const routes: readonly AnyRoute[] = [healthRoute, openApiRoute(() => routes)];
