import { adminRoutes } from './admin/routes.ts';
import { appRoutes } from './apps/routes.ts';
import { deviceLoginRoutes } from './device-login/routes.ts';
import type { AnyRoute } from './http/route.ts';
import { listKeysRoute, meRoute, passwordTokenRoute, revokeKeyRoute } from './keys/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { healthRoute, openApiRoute } from './system/routes.ts';

/** Every mounted route. Each capability contributes its list here. */
export const routes: readonly AnyRoute[] = [
  healthRoute,
  openApiRoute(() => routes),
  passwordTokenRoute,
  meRoute,
  listKeysRoute,
  revokeKeyRoute,
  ...deviceLoginRoutes,
  ...sessionRoutes,
  ...adminRoutes,
  ...appRoutes,
];
