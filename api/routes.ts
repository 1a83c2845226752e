import { adminRoutes } from './admin/routes.ts';
import { logRoutes } from './app-log/routes.ts';
import { appSurfaceRoutes } from './app-surface/routes.ts';
import { appWorkflowRoutes } from './app-workflows/routes.ts';
import { appRoutes } from './apps/routes.ts';
import { attachmentRoutes } from './attachments/routes.ts';
import { automateRoutes } from './automate/routes.ts';
import { billingRoutes } from './billing/routes.ts';
import { connectivityRoutes } from './connectivity/routes.ts';
import { deviceLoginRoutes } from './device-login/routes.ts';
import { evolveRoutes } from './evolve/routes.ts';
import { groupRoutes } from './groups/routes.ts';
import { hostingRoutes } from './hosting/routes.ts';
import type { AnyRoute } from './http/route.ts';
import { agentKeyRoutes } from './keys/agents/routes.ts';
import { keyRoutes } from './keys/routes.ts';
import { markingRoutes } from './markings/routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { objectMediaRoutes } from './media/object-media.ts';
import { mediaRoutes } from './media/routes.ts';
import { mediaUploadRoutes } from './media/uploads.ts';
import { memberRoutes } from './members/routes.ts';
import { modelingRoutes } from './modeling/routes.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { ontologyActionRoutes } from './ontology/actions/routes.ts';
import { ontologyBranchRoutes } from './ontology/branches/routes.ts';
import { ontologyRoutes } from './ontology/routes.ts';
import { semanticRoutes } from './ontology/semantic/routes.ts';
import { ontologySqlRoutes } from './ontology/sql/routes.ts';
import { ontologySubscriptionRoutes } from './ontology/subscriptions/routes.ts';
import { orchestrationRoutes } from './orchestration/routes.ts';
import { controlPlaneRoutes } from './provisioning/routes.ts';
import { filesystemRoutes } from './resources/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { shareRoutes } from './sharing/routes.ts';
import { streamRoutes } from './streams/routes.ts';
import { healthRoute, openApiRoute, readinessRoute } from './system/routes.ts';
import { usageRoutes } from './usage/routes.ts';
import { visionRoutes } from './vision/routes.ts';
import { workshopRoutes } from './workshop/routes.ts';

/** Every mounted route. Each capability contributes its list here. */
export const routes: readonly AnyRoute[] = [
  healthRoute,
  readinessRoute,
  openApiRoute(() => routes),
  ...keyRoutes,
  ...agentKeyRoutes,
  ...deviceLoginRoutes,
  ...sessionRoutes,
  ...adminRoutes,
  ...groupRoutes,
  ...markingRoutes,
  ...appRoutes,
  ...appSurfaceRoutes,
  ...mcpRoutes,
  ...oauthRoutes,
  ...hostingRoutes,
  ...controlPlaneRoutes,
  ...shareRoutes,
  ...memberRoutes,
  ...filesystemRoutes,
  ...logRoutes,
  ...evolveRoutes,
  ...usageRoutes,
  ...billingRoutes,
  ...semanticRoutes,
  // Before the ontology's routes: `attachments` is no ontology's name.
  ...attachmentRoutes,
  ...ontologyRoutes,
  ...ontologySubscriptionRoutes,
  ...ontologyActionRoutes,
  ...ontologyBranchRoutes,
  ...appWorkflowRoutes,
  ...ontologySqlRoutes,
  ...mediaRoutes,
  ...visionRoutes,
  ...connectivityRoutes,
  ...streamRoutes,
  ...orchestrationRoutes,
  ...automateRoutes,
  ...workshopRoutes,
  ...mediaUploadRoutes,
  ...objectMediaRoutes,
  ...modelingRoutes,
];
