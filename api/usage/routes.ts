import { getAppUsage } from '../../domain/usage/index.ts';
import { AppParams } from '../../schemas/apps.ts';
import { AppUsage } from '../../schemas/usage.ts';
import { defineRoute } from '../http/route.ts';

export const appUsageRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/apps/{namespace}/{slug}/usage',
  operationId: 'getAppUsage',
  summary: 'This month’s compute minutes (live, workflow, model) against the limit, today’s daily meters and every cap',
  description:
    'For developer keys of the app’s company and for the app’s own ticket. `computeMinutes.warning` is set at 80 percent of ' +
    'computeMinutesPerMonth; `exhausted` means ticket requests answer 429 quota_exhausted and triggers do not start until ' +
    '00:00 UTC on the 1st of next month (`resetsAt`). Months and days are UTC.',
  tags: ['usage'],
  auth: 'credential',
  snapshot: true,
  params: AppParams,
  response: { status: 200, description: 'The app’s usage.', schema: AppUsage },
  errors: ['unauthorized', 'forbidden', 'invalid_path', 'app_not_found', 'rate_limited'],
  handler: async ({ db, deps, principal, params }) => ({
    data: await getAppUsage(db, deps.clock, principal, params.namespace, params.slug, deps.mailer.configured, deps.appSchedules),
  }),
});

export const usageRoutes = [appUsageRoute];
