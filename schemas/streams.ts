import { z } from 'zod';
import { SourceMapping } from './connectivity.ts';
import { CellId } from './identity.ts';
import { SLUG_PATTERN } from './manifest/index.ts';
import { rejectDuplicates } from './manifest/patterns.ts';
import { ObjectTypeApiName } from './ontology.ts';

// Data streams (spec G "Data streams", error stream_in_use; shapes ours): a company's named push
// sources of records with a record schema, bound to object types as data sources. Records pushed
// over HTTP are checked against the schema and written into every bound type in the request.

export const STREAM_LIMITS = {
  /** Streams a company may have. */
  streamsPerCompany: 100,
  /** Fields of a stream's record schema. */
  fields: 100,
  /** Object types one stream feeds. */
  bindingsPerStream: 12,
  /** Records of one push: all are checked and written in one transaction. */
  recordsPerPush: 500,
  /** Largest push body, in bytes (1 MiB). */
  pushBodyBytes: 1024 * 1024,
  /** Characters of one string value: the data layer's bound for a string property. */
  stringChars: 65_536,
  /** Records a stream keeps (the newest; older ones are dropped as new ones arrive). */
  retainedRecords: 10_000,
  /** Records one read answers at most. */
  recordsPerPage: 1000,
} as const;

export const StreamName = z.string().regex(SLUG_PATTERN, 'must be a lowercase kebab name (the manifest’s `streams` pattern)');
export const StreamsParams = z.object({ namespace: CellId });
export const StreamParams = StreamsParams.extend({ name: StreamName });
export const StreamBindingParams = StreamParams.extend({ objectType: ObjectTypeApiName });

export const STREAM_FIELD_TYPES = ['string', 'integer', 'long', 'double', 'boolean', 'date', 'timestamp'] as const;
export type StreamFieldType = (typeof STREAM_FIELD_TYPES)[number];

export const StreamField = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,62}$/, 'must be 1-63 of letters, digits and _, starting with a letter')
      .meta({ description: 'The record key.' }),
    type: z.enum(STREAM_FIELD_TYPES).meta({
      description:
        'Checked as the data layer checks a property of the same type: string (at most 65,536 characters), integer (32-bit), ' +
        'long (a safe JSON integer), double, boolean, date (`YYYY-MM-DD`), timestamp (RFC 3339 with a zone).',
    }),
    required: z.boolean().default(false).meta({ description: 'A record must give a value (not null).' }),
  })
  .meta({ id: 'StreamField' });
export type StreamField = z.output<typeof StreamField>;

export const CreateStreamInput = z.strictObject({
  name: StreamName,
  description: z.string().max(500).default(''),
  fields: z
    .array(StreamField)
    .min(1)
    .max(STREAM_LIMITS.fields)
    .check(
      z.superRefine((fields, ctx) =>
        rejectDuplicates(
          ctx,
          fields,
          (f) => [f.name],
          (i) => [i, 'name'],
          'field',
        ),
      ),
    )
    .meta({ description: 'The record schema: each record has only these keys, each value of its type.' }),
});
export type CreateStreamInput = z.output<typeof CreateStreamInput>;

export const PutStreamBindingInput = z.strictObject({
  mapping: SourceMapping.meta({
    description:
      'Property of the object type → field of the stream; must map the primary key to a required field. A field’s type must fit the property’s ' +
      '(any field into a string property; integer into integer, long or double; long into long or double; the others into their own type).',
  }),
});
export type PutStreamBindingInput = z.output<typeof PutStreamBindingInput>;

export const StreamBindingView = z
  .object({
    objectType: z.string(),
    mapping: z.record(z.string(), z.string()),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'StreamBinding' });
export type StreamBindingView = z.input<typeof StreamBindingView>;

export const StreamView = z
  .object({
    name: z.string(),
    description: z.string(),
    fields: z.array(StreamField),
    bindings: z.array(StreamBindingView).meta({ description: 'The object types this stream is a data source of, by apiName.' }),
    lastSequence: z.number().meta({ description: 'The sequence number of the last record pushed (0: none yet).' }),
    lastPushedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Stream' });
export type StreamView = z.input<typeof StreamView>;

/** A record as pushed: checked against the stream's fields by the use case, which names each problem by its path. */
export const StreamRecord = z.record(z.string(), z.unknown()).meta({ description: 'Keys are the stream’s fields.' });

export const PushRecordsInput = z.strictObject({
  records: z.array(StreamRecord).min(1).max(STREAM_LIMITS.recordsPerPush),
});
export type PushRecordsInput = z.output<typeof PushRecordsInput>;

export const PushRecordsResult = z
  .object({
    accepted: z.number().meta({ description: 'Records stored (all of the push).' }),
    firstSequence: z.number(),
    lastSequence: z.number(),
    objectTypes: z.array(z.object({ objectType: z.string(), objectsWritten: z.number() })).meta({
      description: 'Objects created or changed in each bound type (records with one primary key make one object: the last wins).',
    }),
  })
  .meta({ id: 'StreamPushResult' });
export type PushRecordsResult = z.input<typeof PushRecordsResult>;

export const StreamRecordsQuery = z.strictObject({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .meta({ description: 'Records after this sequence number.' }),
  pageSize: z.coerce.number().int().min(1).max(STREAM_LIMITS.recordsPerPage).default(100),
});

export const StreamRecordsPage = z
  .object({
    records: z.array(z.object({ sequence: z.number(), record: z.record(z.string(), z.unknown()), pushedAt: z.iso.datetime() })),
    nextAfter: z.number().nullable().meta({ description: 'Pass as `after` for the next page (null: none yet).' }),
  })
  .meta({ id: 'StreamRecordsPage' });
export type StreamRecordsPage = z.input<typeof StreamRecordsPage>;
