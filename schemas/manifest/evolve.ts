// `evolve`: the parts of a page that improvements may tune. Slots name `data-evolve` regions
// (aliases keep old names working after a region is renamed); tokens are CSS custom properties
// an improvement may move within [min, max]; `baked` lists improvements folded into this
// version; `model` is the model that compiled them.
import { z } from 'zod';
import { custom, rejectDuplicates } from './patterns.ts';

export const SLOT_PATTERN = /^[a-z][a-z0-9-]{0,47}$/;
export const slotName = z.string().regex(SLOT_PATTERN);

const slot = z.strictObject({
  name: slotName,
  aliases: z.array(slotName).max(8).default([]),
  description: z.string().max(200).optional(),
});

const token = z
  .strictObject({
    name: z.string().regex(/^--[a-z][a-z0-9-]{0,47}$/, 'must be a CSS custom property such as --accent-hue'),
    slot: slotName,
    min: z.number(),
    max: z.number(),
    default: z.number().optional(),
    step: z.number().positive().optional(),
    unit: z.enum(['px', 'rem', 'em', '%', 'deg', 'ms', 's', 'vw', 'vh']).optional(),
    description: z.string().max(200).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.min >= t.max) custom(ctx, 'range_invalid', 'min must be below max', ['max']);
    if (t.default !== undefined && (t.default < t.min || t.default > t.max))
      custom(ctx, 'range_invalid', 'default must lie within [min, max]', ['default']);
  });

// Spec limit: at most 40 company-wide plus 20 personal improvements per app.
const MAX_BAKED = 60;

export const evolveSchema = z
  .strictObject({
    slots: z.array(slot).max(40).default([]),
    tokens: z.array(token).max(40).default([]),
    baked: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/))
      .max(MAX_BAKED)
      .default([]),
    model: z.string().min(1).max(64).optional(),
  })
  .superRefine((evolve, ctx) => {
    rejectDuplicates(
      ctx,
      evolve.slots,
      (s) => [s.name, ...s.aliases],
      (i) => ['slots', i],
      'slot name or alias',
    );
    rejectDuplicates(
      ctx,
      evolve.tokens,
      (t) => [t.name],
      (i) => ['tokens', i, 'name'],
      'token',
    );
  });

export type Evolve = z.output<typeof evolveSchema>;
