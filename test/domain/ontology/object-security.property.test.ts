import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate } from '../../../domain/ontology/aggregate-objects.ts';
import {
  findObjectTypeRecord,
  findOntologyOfCompany,
  type ObjectTypeRecord,
  type OntologyRecord,
} from '../../../domain/ontology/repository.ts';
import { objectPage } from '../../../domain/ontology/search-objects.ts';
import { writeEdits } from '../../../domain/ontology/write-edits.ts';
import { type PolicySubject, policyGates } from '../../../domain/policy/index.ts';
import { ObjectSecurityPolicy, type SecurityCondition } from '../../../schemas/object-security.ts';
import { AggregateObjectsRequest, SearchObjectsRequest, type WhereClause } from '../../../schemas/ontology.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { type ModelPrincipal, modelRead } from '../../support/object-security-model.ts';
import { define, insertCompanyWithDeveloper } from '../../support/ontology.ts';

// Search and aggregate under random object and property security policies (markings and
// comparisons with user attributes) for random principals (their markings and attributes), over
// random objects and filters, against the in-memory model of the rules: the same objects, the same
// nulled properties, the same counts, sums and groups. A hidden object or a nulled property must
// never show, nor be counted, matched or summed.

let database: TestDatabase;
let companyId: string;
let ontology: OntologyRecord;
let type: ObjectTypeRecord;

type Item = { id: string; region: string | null; owner: string | null; level: string | null; amount: number | null };
const STRINGS = ['north', 'south', 'ann', 'bob'] as const;
const MARKINGS = ['mkg_aaaaaaaaaa', 'mkg_bbbbbbbbbb', 'mkg_cccccccccc'] as const;
// `constructor` is an attribute name like any other (the rules look attributes up in a Map).
const ATTRIBUTES = ['region', 'team', 'constructor'] as const;
const COMPARED = ['region', 'owner', 'level'] as const;
const NULLABLE = ['region', 'owner', 'level', 'amount'] as const;

beforeAll(async () => {
  database = await createTestDatabase();
  const acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  companyId = acme.companyId;
  await define(database.db, acme, {
    types: [
      {
        apiName: 'sec.Item',
        primaryKey: 'id',
        properties: {
          id: { dataType: { type: 'string' } },
          region: { dataType: { type: 'string' } },
          owner: { dataType: { type: 'string' } },
          level: { dataType: { type: 'string' } },
          amount: { dataType: { type: 'integer' } },
        },
      },
    ],
  });
  ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  type = (await findObjectTypeRecord(database.db, ontology.id, 'sec.Item'))!;
});
afterAll(() => database.drop());

// ---- generators
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 4 });
const text = fc.constantFrom(...STRINGS);
const items = fc
  .array(
    fc.record({ region: nullable(text), owner: nullable(text), level: nullable(text), amount: nullable(fc.integer({ min: -9, max: 9 })) }),
    {
      maxLength: 30,
    },
  )
  .map((list) => list.map((o, i): Item => ({ id: `i${String(i).padStart(2, '0')}`, ...o })));

const condition: fc.Arbitrary<SecurityCondition> = fc.oneof(
  fc.constantFrom(...MARKINGS).map((markingId): SecurityCondition => ({ type: 'marking', markingId })),
  fc
    .tuple(fc.constantFrom(...COMPARED), fc.constantFrom(...ATTRIBUTES))
    .map(([property, attribute]): SecurityCondition => ({ type: 'userAttribute', property, attribute })),
);
const conditions = fc.array(condition, { minLength: 1, maxLength: 3 });
const policy = fc
  .record({
    objectPolicy: fc.option(
      conditions.map((c) => ({ conditions: c })),
      { nil: null },
    ),
    propertyPolicies: fc.array(
      fc.record({ properties: fc.uniqueArray(fc.constantFrom(...NULLABLE), { minLength: 1, maxLength: 2 }), conditions }),
      { maxLength: 3 },
    ),
  })
  .map((p) => ObjectSecurityPolicy.parse(p));

const principal: fc.Arbitrary<ModelPrincipal> = fc.record({
  markings: fc.uniqueArray(fc.constantFrom(...MARKINGS)).map((m) => new Set(m)),
  attributes: fc
    .array(fc.tuple(fc.constantFrom(...ATTRIBUTES), fc.uniqueArray(text, { maxLength: 2 })), { maxLength: 3 })
    .map((entries) => new Map(entries)),
});

const where: fc.Arbitrary<WhereClause | undefined> = fc.option(
  fc.oneof(
    fc.tuple(fc.constantFrom(...COMPARED), text).map(([field, value]): WhereClause => ({ type: 'eq', field, value })),
    fc
      .tuple(fc.constantFrom(...COMPARED), text)
      .map(([field, value]): WhereClause => ({ type: 'not', value: { type: 'eq', field, value } })),
    fc.constantFrom(...NULLABLE).map((field): WhereClause => ({ type: 'isNull', field, value: true })),
    fc.integer({ min: -9, max: 9 }).map((value): WhereClause => ({ type: 'gte', field: 'amount', value })),
  ),
  { nil: undefined },
);

// ---- the model's side of a filter
function matches(o: Item, w: WhereClause | undefined): boolean {
  if (w === undefined) return true;
  switch (w.type) {
    case 'not':
      return !matches(o, w.value);
    case 'isNull':
      return (o[w.field as keyof Item] === null) === w.value;
    case 'eq':
      return o[w.field as keyof Item] === w.value;
    case 'gte':
      return o.amount !== null && o.amount >= (w.value as number);
    default:
      throw new Error(`not generated: ${w.type}`);
  }
}

async function load(list: Item[]) {
  await database.db.transaction().execute(async (trx) => {
    const existing = await objectPage(trx, ontology, type, { pageSize: 1000, select: ['id'] });
    await writeEdits(trx, {
      companyId,
      accountId: null,
      operationId: `load-${Math.random()}`,
      actionTypeRid: null,
      edits: [
        ...existing.data.map((o) => ({ type: 'delete' as const, objectType: 'sec.Item', primaryKey: o.__primaryKey })),
        ...list.map((o) => ({
          type: 'create' as const,
          objectType: 'sec.Item',
          properties: Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)),
        })),
      ],
    });
  });
}

/** The type as a read for this principal sees it: its policy and the gates the policy sets for the principal (as openOntology does). */
function policed(p: ObjectSecurityPolicy, who: ModelPrincipal): ObjectTypeRecord {
  const subject: PolicySubject = {
    clearance: new Map([...who.markings].map((m) => [m, 'use' as const])),
    attributes: who.attributes,
  };
  return { ...type, security: p, gates: policyGates(p, subject) };
}

const row = (o: Record<string, unknown>) => NULLABLE.map((f) => o[f] ?? null);

describe('object security against the in-memory model', () => {
  it('search and aggregate see exactly what the model lets the principal read', async () => {
    await fc.assert(
      fc.asyncProperty(items, policy, principal, fc.array(where, { minLength: 1, maxLength: 3 }), async (list, p, who, filters) => {
        await load(list);
        const seen = list.flatMap((o) => modelRead(p, who, o) ?? []);
        const read = policed(p, who);
        for (const w of filters) {
          const context = JSON.stringify({ policy: p, markings: [...who.markings], attributes: [...who.attributes], where: w });
          const expected = seen.filter((o) => matches(o, w));
          const page = await objectPage(database.db, ontology, read, SearchObjectsRequest.parse({ where: w, pageSize: 100 }));
          expect(
            page.data.map((o) => [o.__primaryKey, ...row(o)]),
            context,
          ).toEqual(expected.map((o) => [o.id, ...row(o)]));
          expect(page.totalCount, context).toBe(expected.length);

          const totals = await aggregate(
            database.db,
            ontology,
            read,
            AggregateObjectsRequest.parse({
              where: w,
              aggregation: [{ type: 'count' }, { type: 'sum', field: 'amount', name: 'sum' }],
            }),
          );
          const amounts = expected.flatMap((o) => (o.amount === null ? [] : [o.amount]));
          expect(
            totals.data[0]!.metrics.map((m) => m.value),
            context,
          ).toEqual([expected.length, amounts.length === 0 ? null : amounts.reduce((s, v) => s + v, 0)]);

          const byLevel = await aggregate(
            database.db,
            ontology,
            read,
            AggregateObjectsRequest.parse({ where: w, aggregation: [{ type: 'count' }], groupBy: [{ type: 'exact', field: 'level' }] }),
          );
          const groups = new Map<string, number>();
          for (const o of expected) if (o.level !== null) groups.set(o.level, (groups.get(o.level) ?? 0) + 1);
          expect(Object.fromEntries(byLevel.data.map((d) => [String(d.group.level), d.metrics[0]!.value])), context).toEqual(
            Object.fromEntries(groups),
          );
          expect(byLevel.excludedItems, context).toBe(expected.filter((o) => o.level === null).length);
        }
      }),
      { numRuns: 40 },
    );
  });
});
