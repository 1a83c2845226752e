import { z } from 'zod';
import { ERROR_CODES } from '../../schemas/errors.ts';

// One shape for every answer: `ok` tells success from failure without
// looking at the status, `requestId` matches the x-request-id header and the logs.

export const ApiFailure = z
  .object({
    ok: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES).meta({ description: 'See the error table in this document’s description.' }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    requestId: z.string(),
  })
  .meta({ id: 'ApiFailure' });

const successFields = { ok: z.literal(true), requestId: z.string() };

/** The success envelope in general; each operation documents its own `data`. */
export const ApiSuccess = z
  .object({ ...successFields, data: z.unknown() })
  .meta({ description: 'Success envelope: `ok: true`, the operation’s `data`, and the request id.' });

/** The success envelope of one operation: ApiSuccess with that operation's `data`. */
export function apiSuccess<T extends z.ZodType>(data: T) {
  return z.object({ ...successFields, data }).meta({ description: 'ApiSuccess' });
}

export const DryRunPlan = z
  .object({
    dryRun: z.literal(true),
    plan: z.unknown().meta({ description: 'What the request would do; nothing was changed.' }),
  })
  .meta({ id: 'DryRunPlan' });

export type ApiFailureBody = z.infer<typeof ApiFailure>;

/**
 * Success data already serialized, e.g. on a worker thread (ontology SQL): sent into the envelope
 * as it is, never parsed on the event loop. Any other path that stringifies it gets the same JSON.
 */
export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
