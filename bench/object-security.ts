// Object security policies (issue 29, Deliver 5): search and aggregate latency over 10^5 objects
// of one type with and without a policy that the reader is subject to (an object policy comparing
// `region` with the reader's attribute, a property policy nulling `amount` by a marking it lacks).
// Goal: the policed search within 1.5x of the unpoliced one. Median of 9 rounds per query, each
// round running the unpoliced query and the policed ones in turn (a load change weighs on all alike).
// Usage: node bench/object-security.ts [objects=100000]
import { sql } from 'kysely';
import { aggregate, objectPage, objectTable } from '../domain/ontology/index.ts';
import { attributeMap, policyGates } from '../domain/policy/index.ts';
import { ObjectSecurityPolicy } from '../schemas/object-security.ts';
import { AggregateObjectsRequest, SearchObjectsRequest } from '../schemas/ontology.ts';
import { startOntologyBench } from './support/ontology-bench.ts';
import { report } from './support/report.ts';
import { mediansAlternating } from './support/timing.ts';

const objects = Number(process.argv[2] ?? 100_000);

const POLICY = ObjectSecurityPolicy.parse({
  objectPolicy: { conditions: [{ type: 'userAttribute', property: 'region', attribute: 'region' }] },
  propertyPolicies: [{ properties: ['amount'], conditions: [{ type: 'marking', markingId: 'mkg_bench000000' }] }],
});
// Readers of 3 regions of 10 (30% of the objects) and of all 10 (the policy's pure overhead); amounts nulled for both.
const reader = (regions: number[]) => ({ clearance: new Map(), attributes: attributeMap({ region: regions.map((r) => `region-${r}`) }) });
const READERS = { '3 of 10 regions': reader([1, 4, 7]), 'every region': reader([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) };

const QUERIES = {
  'search eq (1%), first 100 by key': {
    kind: 'search',
    request: { where: { type: 'eq', field: 'category', value: 'cat-042' }, pageSize: 100 },
  },
  'search all, first 100 by key': { kind: 'search', request: { pageSize: 100 } },
  'aggregate count by category': {
    kind: 'aggregate',
    request: { aggregation: [{ type: 'count' }], groupBy: [{ type: 'exact', field: 'category' }] },
  },
} as const;

const { db, ontology, type, stop } = await startOntologyBench('object-security', {
  id: { dataType: { type: 'long' } },
  category: { dataType: { type: 'string' } },
  region: { dataType: { type: 'string' } },
  amount: { dataType: { type: 'double' } },
});
try {
  await sql`INSERT INTO ${objectTable(ontology, type)} (id, category, region, amount)
    SELECT i, 'cat-' || lpad((i % 100)::text, 3, '0'), 'region-' || (i % 10), (i * 7919 % 1000000) / 100.0
    FROM generate_series(1::bigint, ${objects}::bigint) AS i`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
  for (const [name, q] of Object.entries(QUERIES)) {
    const run = (t: typeof type) =>
      q.kind === 'search'
        ? () => objectPage(db, ontology, t, SearchObjectsRequest.parse(q.request))
        : () => aggregate(db, ontology, t, AggregateObjectsRequest.parse(q.request));
    const readers = Object.entries(READERS);
    const [bare = 0, ...policed] = await mediansAlternating(
      [run(type), ...readers.map(([, subject]) => run({ ...type, security: POLICY, gates: policyGates(POLICY, subject) }))],
      9,
    );
    for (const [i, [who]] of readers.entries()) {
      report({
        name: `${name}, ${objects} objects, policy (${who})`,
        value: policed[i]!,
        unit: 'ms',
        baseline: bare,
        goal: '<= 1.5x unpoliced',
      });
    }
  }
} finally {
  await stop();
}
