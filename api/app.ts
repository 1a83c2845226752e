import Koa from 'koa';
import type { ApiDeps } from './deps.ts';
import { hostingPages } from './hosting/pages.ts';
import { errorMiddleware } from './http/error-middleware.ts';
import { mountRoutes } from './http/mount-routes.ts';
import { requestFrame } from './http/request-frame.ts';
import type { AnyRoute } from './http/route.ts';
import { sdkRouter } from './sdk/files.ts';
import { pagesRouter } from './web/pages.ts';

export function createApp(deps: ApiDeps, routes: readonly AnyRoute[]): Koa {
  const app = new Koa();
  // Errors never reach Koa's default handler: errorMiddleware answers them all.
  app.silent = true;
  app.use(requestFrame(deps.logger));
  app.use(errorMiddleware(deps.logger));
  // The app page trees ({production_base}, {developer_base}) answer before the API router.
  app.use(hostingPages(deps));
  app.use(mountRoutes(routes, deps));
  const sdk = sdkRouter();
  app.use(sdk.routes());
  const pages = pagesRouter(deps);
  app.use(pages.routes());
  app.use(pages.allowedMethods());
  return app;
}
