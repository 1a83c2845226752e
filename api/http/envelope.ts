import { z } from 'zod';
import { ERROR_CODES } from './api-error.ts';

// One shape for every answer: `ok` tells success from failure without
// looking at the status, `requestId` matches the x-request-id header and the logs.

export const ApiFailure = z
  .object({
    ok: z.literal(false),
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    requestId: z.string(),
  })
  .meta({ id: 'ApiFailure' });

export function apiSuccess<T extends z.ZodType>(data: T) {
  return z.object({ ok: z.literal(true), data, requestId: z.string() });
}

export const DryRunPlan = z
  .object({
    dryRun: z.literal(true),
    plan: z.unknown().meta({ description: 'What the request would do; nothing was changed.' }),
  })
  .meta({ id: 'DryRunPlan' });

export type ApiFailureBody = z.infer<typeof ApiFailure>;
