// `exports`: capabilities an app offers to other apps and workflows. Only the `query` kind is
// specified; other kinds are rejected until they are.
import { z } from 'zod';
import { boundedRecord, dottedName, identifier, propertyName, rejectDuplicates, scalar, scalarOrList } from './patterns.ts';

const VALUE_TYPES = ['text', 'integer', 'real', 'numeric', 'boolean', 'date', 'timestamp', 'json', 'text[]', 'number[]'] as const;
export const valueType = z.enum(VALUE_TYPES);

export const inputParameter = z.strictObject({
  type: valueType,
  title: z.string().max(40).optional(),
  description: z.string().max(300).optional(),
  required: z.boolean().default(false),
});

const WHERE_OPERATORS = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'contains', 'startsWith', 'null'] as const;

export const operatorObject = z
  .strictObject(
    Object.fromEntries(WHERE_OPERATORS.map((op) => [op, scalarOrList.optional()])) as Record<
      (typeof WHERE_OPERATORS)[number],
      z.ZodOptional<typeof scalarOrList>
    >,
  )
  .refine((ops) => Object.keys(ops).length > 0, 'an operator object needs at least one operator');

export const sortKey = z
  .string()
  .max(49)
  .regex(/^-?[a-z][A-Za-z0-9_]*$/, 'must be a property name with an optional leading -');

const queryExportSchema = z.strictObject({
  name: identifier,
  title: z.string().min(1).max(60),
  description: z.string().max(400).default(''),
  input: boundedRecord(identifier, inputParameter, 0, 40).default({}),
  kind: z.literal('query'),
  type: dottedName,
  where: boundedRecord(propertyName, z.union([scalar, operatorObject]), 0, 40).default({}),
  select: z.array(propertyName).max(40).default([]),
  sort: z.array(sortKey).max(3).default([]),
  limit: z.number().int().min(1).max(500).default(200),
});

export const exportsSchema = z
  .array(queryExportSchema)
  .max(24)
  .superRefine((items, ctx) =>
    rejectDuplicates(
      ctx,
      items,
      (item) => [item.name],
      (i) => [i, 'name'],
      'export name',
    ),
  )
  .default([]);

export type QueryExport = z.output<typeof queryExportSchema>;
