// Wire shapes of the data layer (issue 15), after Foundry's public Ontologies v2 API under our
// /api/v1 paths and envelope. Pure zod: the SDK reuses them.
import { z } from 'zod';
import { AttachmentRid } from './attachments.ts';
import { dottedName, propertyName, rejectDuplicates } from './manifest/patterns.ts';

/** An object type's apiName: the manifest's dotted semantic name, short enough to be a PostgreSQL identifier. */
export const ObjectTypeApiName = dottedName
  .max(63)
  .meta({ description: 'The dotted semantic name, e.g. `sales.Order` (at most 63 characters).' });
export const PropertyApiName = propertyName;
/** A link's name as one side's objects use it, and a link type's own apiName. */
export const LinkApiName = z
  .string()
  .max(63)
  .regex(/^[a-z][A-Za-z0-9_-]*$/);

export const ONTOLOGY_RID_PREFIX = 'ri.ontology.svc.ontology.';
export const OBJECT_TYPE_RID_PREFIX = 'ri.ontology.svc.object-type.';
export const LINK_TYPE_RID_PREFIX = 'ri.ontology.svc.link-type.';

const SCALAR_TYPES = ['string', 'integer', 'long', 'double', 'boolean', 'date', 'timestamp'] as const;
export type ScalarTypeName = (typeof SCALAR_TYPES)[number];
/** The property types a primary key may have: they print exactly as text (link rows keep keys as text). */
export const PRIMARY_KEY_TYPES = ['string', 'integer', 'long'] as const;

export const ScalarType = z.strictObject({ type: z.enum(SCALAR_TYPES) });
export const StructType = z.strictObject({
  type: z.literal('struct'),
  structFieldTypes: z
    .array(z.strictObject({ apiName: PropertyApiName, dataType: ScalarType }))
    .min(1)
    .max(50)
    .check(
      z.superRefine((fields, ctx) =>
        rejectDuplicates(
          ctx,
          fields,
          (f) => [f.apiName],
          (i) => [i, 'apiName'],
          'struct field',
        ),
      ),
    ),
});
export const ArrayType = z.strictObject({ type: z.literal('array'), subType: z.union([ScalarType, StructType]) });
/**
 * A media property: its value is Foundry's MediaReference to an item of the property's media set,
 * set by an upload session's completion (never filtered or sorted on).
 */
export const MediaReferenceType = z.strictObject({ type: z.literal('mediaReference') });
/** A media property's value (Foundry MediaReference): the item in the property's media set. */
export const MediaReference = z.strictObject({
  mimeType: z.string().min(1).max(255),
  reference: z.strictObject({
    type: z.literal('mediaSetViewItem'),
    mediaSetViewItem: z.strictObject({
      mediaSetRid: z.string().max(200),
      mediaSetViewRid: z.string().max(200),
      mediaItemRid: z.string().max(200),
    }),
  }),
});
export type MediaReference = z.infer<typeof MediaReference>;
/**
 * An attachment property (Foundry AttachmentType): one uploaded file, set by an action parameter
 * of the same type (whose value is the attachment's rid); read through the object.
 */
export const AttachmentType = z.strictObject({ type: z.literal('attachment') });
/** An attachment property's value (Foundry Attachment property value). */
export const AttachmentValue = z.strictObject({ rid: AttachmentRid });
export type AttachmentValue = z.infer<typeof AttachmentValue>;
/** Property data types (Foundry ObjectPropertyType): scalars, arrays of scalars or structs, structs of scalars, media references, attachments. */
export const DataType = z.union([ScalarType, StructType, ArrayType, MediaReferenceType, AttachmentType]);
export type DataType = z.infer<typeof DataType>;

export const PropertyDefinition = z.strictObject({
  dataType: DataType,
  displayName: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
});
export type PropertyDefinition = z.infer<typeof PropertyDefinition>;

const MAX_PROPERTIES = 200;

/** One object type in a definition batch. */
export const ObjectTypeDefinition = z
  .strictObject({
    apiName: ObjectTypeApiName,
    displayName: z.string().min(1).max(200).optional(),
    pluralDisplayName: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    primaryKey: PropertyApiName,
    /** Defaults to the primary key. */
    titleProperty: PropertyApiName.optional(),
    properties: z.record(PropertyApiName, PropertyDefinition),
  })
  .check(
    z.superRefine((t, ctx) => {
      const names = Object.keys(t.properties);
      if (names.length === 0 || names.length > MAX_PROPERTIES) {
        ctx.addIssue({ code: 'custom', message: `must have 1 to ${MAX_PROPERTIES} properties`, path: ['properties'] });
      }
      const pk = t.properties[t.primaryKey];
      if (!pk) ctx.addIssue({ code: 'custom', message: 'must name one of the properties', path: ['primaryKey'] });
      else if (!(PRIMARY_KEY_TYPES as readonly string[]).includes(pk.dataType.type)) {
        ctx.addIssue({ code: 'custom', message: `a primary key is ${PRIMARY_KEY_TYPES.join(', ')}`, path: ['primaryKey'] });
      }
      if (t.titleProperty !== undefined && !t.properties[t.titleProperty]) {
        ctx.addIssue({ code: 'custom', message: 'must name one of the properties', path: ['titleProperty'] });
      }
    }),
  );
export type ObjectTypeDefinition = z.infer<typeof ObjectTypeDefinition>;

export const Cardinality = z.enum(['ONE', 'MANY']);

/** One side of a link type: the object type, the link's name as its objects use it, how many of the other side one object links to. */
export const LinkSideDefinition = z.strictObject({ objectType: ObjectTypeApiName, linkApiName: LinkApiName, cardinality: Cardinality });

export const LinkTypeDefinition = z.strictObject({ apiName: LinkApiName, source: LinkSideDefinition, target: LinkSideDefinition }).check(
  z.superRefine((l, ctx) => {
    if (l.source.objectType === l.target.objectType && l.source.linkApiName === l.target.linkApiName) {
      ctx.addIssue({ code: 'custom', message: 'a link between objects of one type needs two names', path: ['target', 'linkApiName'] });
    }
  }),
);
export type LinkTypeDefinition = z.infer<typeof LinkTypeDefinition>;

/** `POST /api/v1/developer/semantic/{namespace}/types`: objects types (new or changed) and link types, applied together or not at all. */
export const DefineTypesRequest = z
  .strictObject({
    types: z.array(ObjectTypeDefinition).max(100).default([]),
    linkTypes: z.array(LinkTypeDefinition).max(100).default([]),
  })
  .check(
    z.superRefine((r, ctx) => {
      rejectDuplicates(
        ctx,
        r.types,
        (t) => [t.apiName],
        (i) => ['types', i, 'apiName'],
        'object type',
      );
      rejectDuplicates(
        ctx,
        r.linkTypes,
        (l) => [l.apiName],
        (i) => ['linkTypes', i, 'apiName'],
        'link type',
      );
    }),
  );
export type DefineTypesRequest = z.input<typeof DefineTypesRequest>;

/** Foundry ObjectTypeV2, plus our version. */
export const ObjectType = z.object({
  rid: z.string(),
  apiName: z.string(),
  displayName: z.string(),
  pluralDisplayName: z.string(),
  description: z.string().optional(),
  status: z.literal('ACTIVE'),
  primaryKey: z.string(),
  titleProperty: z.string(),
  properties: z.record(z.string(), PropertyDefinition),
  version: z.number().int(),
});
export type ObjectType = z.infer<typeof ObjectType>;

/** Foundry LinkTypeSideV2: a link as seen from one object type. */
export const LinkTypeSide = z.object({
  apiName: z.string(),
  displayName: z.string(),
  status: z.literal('ACTIVE'),
  objectTypeApiName: z.string(),
  cardinality: Cardinality,
  linkTypeRid: z.string(),
});
export type LinkTypeSide = z.infer<typeof LinkTypeSide>;

export const LinkType = z.object({
  rid: z.string(),
  apiName: z.string(),
  source: z.object({ objectType: z.string(), linkApiName: z.string(), cardinality: Cardinality }),
  target: z.object({ objectType: z.string(), linkApiName: z.string(), cardinality: Cardinality }),
});
export type LinkType = z.infer<typeof LinkType>;

export const Ontology = z.object({ rid: z.string(), apiName: z.string(), displayName: z.string(), description: z.string() });
export type Ontology = z.infer<typeof Ontology>;

export const DefineTypesResult = z.object({
  types: z.array(
    z.object({ apiName: z.string(), rid: z.string(), version: z.number().int(), change: z.enum(['created', 'changed', 'unchanged']) }),
  ),
  linkTypes: z.array(z.object({ apiName: z.string(), rid: z.string(), change: z.enum(['created', 'changed', 'unchanged']) })),
});

/** An object as Foundry sends it: flat properties (nulls omitted) and system fields. `__rev` is ours: pass it back as `ifRev`. */
export const OntologyObject = z
  .object({ __apiName: z.string(), __primaryKey: z.union([z.string(), z.number()]), __rid: z.string(), __rev: z.number().int() })
  .catchall(z.unknown());
export type OntologyObject = z.infer<typeof OntologyObject>;

/** Path parameters. `{ontology}` takes the API name (the company's namespace) or the RID. */
export const OntologyParam = z.string().min(1).max(100);
export const OntologyParams = z.strictObject({ ontology: OntologyParam });
export const ObjectTypeParams = OntologyParams.extend({ objectType: ObjectTypeApiName });
/** A primary key in a path: as text, converted by the key property's type. */
export const PrimaryKeyParam = z.string().min(1).max(1000);
/** One property of one object in a path (`…/objects/{objectType}/{primaryKey}/…/{property}`): its media, its attachment. */
export const ObjectPropertyParams = ObjectTypeParams.extend({ primaryKey: PrimaryKeyParam, property: PropertyApiName });

// ---- Queries: where clauses, order, paging, aggregation (Foundry SearchJsonQueryV2 and AggregateObjectsRequestV2)

/** A value a where clause compares with; checked against the property's type by the query compiler. */
export const QueryValue = z.union([z.string().max(10_000), z.number(), z.boolean()]);
const field = PropertyApiName;
const LEAVES = [
  z.strictObject({ type: z.literal('eq'), field, value: QueryValue }),
  z.strictObject({ type: z.literal('gt'), field, value: QueryValue }),
  z.strictObject({ type: z.literal('gte'), field, value: QueryValue }),
  z.strictObject({ type: z.literal('lt'), field, value: QueryValue }),
  z.strictObject({ type: z.literal('lte'), field, value: QueryValue }),
  z.strictObject({ type: z.literal('isNull'), field, value: z.boolean() }),
  /** An array property holds the value. */
  z.strictObject({ type: z.literal('contains'), field, value: QueryValue }),
  /** The property equals one of the values; an empty list matches every object (Foundry). */
  z.strictObject({ type: z.literal('in'), field, value: z.array(QueryValue).max(1000) }),
  z.strictObject({ type: z.literal('startsWith'), field, value: z.string().max(10_000) }),
] as const;
/** Operands of one and/or. */
export const MAX_WHERE_OPERANDS = 100;
/** and/or/not nest at most this deep (issue 15); deeper is refused by the schema, without recursion. */
export const MAX_WHERE_DEPTH = 3;

// Each level is one named component of the OpenAPI document (referenced, not copied), so the
// document grows with the depth, not exponentially.
function whereAt(depth: number): z.ZodType<WhereClause> {
  if (depth === 0) return z.discriminatedUnion('type', [...LEAVES]).meta({ id: 'OntologyWhereLeaf' }) as z.ZodType<WhereClause>;
  const inner = whereAt(depth - 1);
  const level = z.discriminatedUnion('type', [
    ...LEAVES,
    z.strictObject({ type: z.literal('and'), value: z.array(inner).max(MAX_WHERE_OPERANDS) }),
    z.strictObject({ type: z.literal('or'), value: z.array(inner).max(MAX_WHERE_OPERANDS) }),
    z.strictObject({ type: z.literal('not'), value: inner }),
  ]);
  return (depth === MAX_WHERE_DEPTH ? level : level.meta({ id: `OntologyWhere${depth}` })) as z.ZodType<WhereClause>;
}

export type WhereLeaf = z.infer<(typeof LEAVES)[number]>;
export type WhereClause = WhereLeaf | { type: 'and' | 'or'; value: WhereClause[] } | { type: 'not'; value: WhereClause };
export const Where = whereAt(MAX_WHERE_DEPTH).meta({
  description:
    'SearchJsonQueryV2: {type: eq|gt|gte|lt|lte|contains|startsWith, field, value}, {type: isNull, field, value: boolean}, ' +
    `{type: in, field, value: []}, {type: and|or, value: []}, {type: not, value}; and/or/not nest at most ${MAX_WHERE_DEPTH} deep.`,
});

export const OrderByField = z.strictObject({ field, direction: z.enum(['asc', 'desc']).default('asc') });
export const SearchOrderBy = z.strictObject({ fields: z.array(OrderByField).min(1).max(10) });
export type OrderByField = z.infer<typeof OrderByField>;

export const PageSize = z.coerce.number().int().min(1).max(1000);
export const PageToken = z.string().min(1).max(2000);

export const SearchObjectsRequest = z.strictObject({
  where: Where.optional(),
  orderBy: SearchOrderBy.optional(),
  pageSize: PageSize.optional(),
  pageToken: PageToken.optional(),
  select: z.array(field).max(200).optional(),
});
export type SearchObjectsRequest = z.infer<typeof SearchObjectsRequest>;

export const ObjectPage = z.object({ data: z.array(OntologyObject), nextPageToken: z.string().optional(), totalCount: z.number().int() });
export type ObjectPage = z.infer<typeof ObjectPage>;

const metricName = z.string().min(1).max(100);
export const Aggregation = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('count'), name: metricName.optional() }),
  z.strictObject({ type: z.enum(['min', 'max', 'sum', 'avg', 'exactDistinct']), field, name: metricName.optional() }),
]);
export type Aggregation = z.infer<typeof Aggregation>;

/** Largest number of groups an aggregation answers (Foundry's exact maxGroupCount bound). */
export const MAX_GROUP_COUNT = 10_000;
const RangeBound = z.union([z.number(), z.string().max(100)]);
export const GroupBy = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('exact'), field, maxGroupCount: z.number().int().min(1).max(MAX_GROUP_COUNT).optional() }),
  z.strictObject({
    type: z.literal('ranges'),
    field,
    ranges: z
      .array(z.strictObject({ startValue: RangeBound.optional(), endValue: RangeBound.optional() }))
      .min(1)
      .max(100)
      .superRefine((ranges, ctx) => {
        // Groups are named by their range: the same range twice would answer two groups no one can tell apart.
        const seen = new Set<string>();
        ranges.forEach((r, i) => {
          const key = JSON.stringify([r.startValue ?? null, r.endValue ?? null]);
          if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i], message: 'the same range twice' });
          seen.add(key);
        });
      }),
  }),
]);
export type GroupBy = z.infer<typeof GroupBy>;

export const AggregateObjectsRequest = z.strictObject({
  aggregation: z.array(Aggregation).min(1).max(20),
  where: Where.optional(),
  groupBy: z.array(GroupBy).max(3).default([]),
});
export type AggregateObjectsRequest = z.input<typeof AggregateObjectsRequest>;

export const AggregateObjectsResponse = z.object({
  /** Objects left out of every group because a grouped property is null. */
  excludedItems: z.number().int(),
  accuracy: z.literal('ACCURATE'),
  data: z.array(
    z.object({
      group: z.record(z.string(), z.unknown()),
      metrics: z.array(z.object({ name: z.string(), value: z.union([z.number(), z.string(), z.null()]) })),
    }),
  ),
});
export type AggregateObjectsResponse = z.infer<typeof AggregateObjectsResponse>;

// ---- Direct edits and imports by developers (ours: Foundry has no public shape for them)

const KeyValue = z.union([z.string().min(1).max(1000), z.number()]);
const Properties = z.record(PropertyApiName, z.unknown());
export const ObjectEdit = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('create'), objectType: ObjectTypeApiName, properties: Properties }),
  z.strictObject({
    type: z.literal('modify'),
    objectType: ObjectTypeApiName,
    primaryKey: KeyValue,
    properties: Properties,
    ifRev: z.number().int().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal('delete'),
    objectType: ObjectTypeApiName,
    primaryKey: KeyValue,
    ifRev: z.number().int().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('addLink'), linkType: LinkApiName, source: KeyValue, target: KeyValue }),
  z.strictObject({ type: z.literal('removeLink'), linkType: LinkApiName, source: KeyValue, target: KeyValue }),
]);
export const MAX_DIRECT_EDITS = 1000;
export const EditObjectsRequest = z.strictObject({ edits: z.array(ObjectEdit).min(1).max(MAX_DIRECT_EDITS) });

export const ObjectChange = z.object({
  objectType: z.string(),
  primaryKey: z.union([z.string(), z.number()]),
  before: OntologyObject.nullable(),
  after: OntologyObject.nullable(),
});
export const EditObjectsResponse = z.object({ operationId: z.string(), objects: z.array(ObjectChange) });

/** Objects per import request. */
export const MAX_IMPORT_OBJECTS = 10_000;
export const ImportObjectsRequest = z.array(Properties).min(1).max(MAX_IMPORT_OBJECTS);
export const ImportMode = z.enum(['create', 'upsert']);
export const ImportObjectsResponse = z.object({ operationId: z.string(), created: z.number().int(), modified: z.number().int() });

// ---- Object sets (Foundry ObjectSet): base, filter, union, intersect, subtract, searchAround, static, reference

export const OBJECT_SET_RID_PREFIX = 'ri.object-set.svc.temporary.';
/** Object sets nest at most this deep; deeper is refused by the schema, without recursion. */
export const MAX_OBJECT_SET_DEPTH = 5;
const ObjectRid = z.string().max(300);

export type ObjectSet =
  | { type: 'base'; objectType: string }
  | { type: 'static'; objects: string[] }
  | { type: 'reference'; reference: string }
  | { type: 'filter'; objectSet: ObjectSet; where: WhereClause }
  | { type: 'union' | 'intersect' | 'subtract'; objectSets: ObjectSet[] }
  | { type: 'searchAround'; objectSet: ObjectSet; link: string };

const OBJECT_SET_LEAVES = [
  z.strictObject({ type: z.literal('base'), objectType: ObjectTypeApiName }),
  z.strictObject({ type: z.literal('static'), objects: z.array(ObjectRid).max(1000) }),
  z.strictObject({ type: z.literal('reference'), reference: z.string().max(200) }),
] as const;

function objectSetAt(depth: number): z.ZodType<ObjectSet> {
  if (depth === 0) return z.discriminatedUnion('type', [...OBJECT_SET_LEAVES]).meta({ id: 'ObjectSetLeaf' }) as z.ZodType<ObjectSet>;
  const inner = objectSetAt(depth - 1);
  const level = z.discriminatedUnion('type', [
    ...OBJECT_SET_LEAVES,
    z.strictObject({ type: z.literal('filter'), objectSet: inner, where: Where }),
    z.strictObject({ type: z.literal('union'), objectSets: z.array(inner).min(1).max(20) }),
    z.strictObject({ type: z.literal('intersect'), objectSets: z.array(inner).min(1).max(20) }),
    z.strictObject({ type: z.literal('subtract'), objectSets: z.array(inner).min(1).max(20) }),
    z.strictObject({ type: z.literal('searchAround'), objectSet: inner, link: LinkApiName }),
  ]);
  return (depth === MAX_OBJECT_SET_DEPTH ? level : level.meta({ id: `ObjectSet${depth}` })) as z.ZodType<ObjectSet>;
}
export const ObjectSetSchema = objectSetAt(MAX_OBJECT_SET_DEPTH).meta({
  description:
    'ObjectSet: {type: base, objectType}, {type: static, objects: [object RIDs]}, {type: reference, reference: a temporary ' +
    'object set RID}, {type: filter, objectSet, where}, {type: union|intersect|subtract, objectSets}, {type: searchAround, ' +
    `objectSet, link}; nested at most ${MAX_OBJECT_SET_DEPTH} deep; every set in one expression resolves to one object type.`,
});

export const LoadObjectSetRequest = z.strictObject({
  objectSet: ObjectSetSchema,
  orderBy: SearchOrderBy.optional(),
  pageSize: PageSize.optional(),
  pageToken: PageToken.optional(),
  select: z.array(field).max(200).optional(),
});
export const AggregateObjectSetRequest = z.strictObject({
  objectSet: ObjectSetSchema,
  aggregation: z.array(Aggregation).min(1).max(20),
  groupBy: z.array(GroupBy).max(3).default([]),
});
export const CreateTemporaryObjectSetRequest = z.strictObject({ objectSet: ObjectSetSchema });
export const TemporaryObjectSet = z.object({ objectSetRid: z.string() });
