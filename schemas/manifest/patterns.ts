// Patterns and small schema builders shared by several manifest sections.
import { z } from 'zod';

export const SLUG_PATTERN = /^[a-z][a-z0-9-]{1,47}$/;
/** A company's cell id, which is also its namespace: `cell-` then the company id. */
export const CELL_ID_PATTERN = /^cell-[a-z0-9][a-z0-9-]{1,62}$/;
const IDENTIFIER_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;
const PROPERTY_PATTERN = /^[a-z][A-Za-z0-9_]*$/;
const DOTTED_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*([.][A-Za-z][A-Za-z0-9_-]*){0,4}$/;

/** Lowercase kebab name: slugs, streams, cameras. */
export const kebabName = z.string().regex(SLUG_PATTERN);
/** Export, parameter, step and field names. */
export const identifier = z.string().regex(IDENTIFIER_PATTERN);
/** Property of a semantic type. */
export const propertyName = z.string().max(48).regex(PROPERTY_PATTERN);
/** Semantic type or action name such as `sales.Order`. */
export const dottedName = z.string().max(80).regex(DOTTED_NAME_PATTERN);

/** JSON scalar as used in query filters and step inputs. */
export const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
export const scalarOrList = z.union([scalar, z.array(scalar).max(50)]);

export function custom(ctx: z.core.$RefinementCtx, code: string, message: string, path: PropertyKey[]): void {
  ctx.addIssue({ code: 'custom', message, path, params: { code } });
}

/** A record whose number of entries is bounded (JSON objects have no maxItems). */
export function boundedRecord<K extends z.core.$ZodRecordKey, V extends z.ZodType>(key: K, value: V, min: number, max: number) {
  return z.record(key, value).check(
    z.superRefine((record, ctx) => {
      const count = Object.keys(record).length;
      if (count < min || count > max) custom(ctx, 'entry_count', `must have ${min} to ${max} entries, has ${count}`, []);
    }),
  );
}

/** Adds a `duplicate` issue at `pathOf(index)` for every item repeating a key seen before. */
export function rejectDuplicates<T>(
  ctx: z.core.$RefinementCtx,
  items: readonly T[],
  keysOf: (item: T) => readonly string[],
  pathOf: (index: number) => PropertyKey[],
  what: string,
): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    for (const key of keysOf(item)) {
      if (seen.has(key)) custom(ctx, 'duplicate', `duplicate ${what} "${key}"`, pathOf(index));
      seen.add(key);
    }
  });
}
