// Member import of 1000 people (JSON and CSV), measured against a baseline taken in the same run:
// the same 1000 accounts and licenses written with two plain multi-row INSERTs in one transaction.
// Usage: npx node bench/members.ts [rounds=3]
import { sql } from 'kysely';
import { record } from './support/report.ts';
import { startBenchService } from './support/service.ts';
import { median, time } from './support/timing.ts';

const rounds = Number(process.argv[2] ?? 3);
const PEOPLE = 1000;
const { svc, developerKey: key, call, stop } = await startBenchService();

const people = (tag: string) =>
  Array.from({ length: PEOPLE }, (_, i) => ({ email: `${tag}-${i}@bench.test`, name: `Person ${i}, ${tag}`, externalId: `${tag}-${i}` }));
const csvOf = (rows: ReturnType<typeof people>) =>
  ['email,name,externalId', ...rows.map((p) => `${p.email},"${p.name}",${p.externalId}`)].join('\r\n');

async function importCsv(csv: string): Promise<void> {
  const res = await fetch(`${svc.url}/api/v1/developer/members/import`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', authorization: `Bearer ${key}` },
    body: csv,
  });
  if (res.status !== 200) throw new Error(`CSV import: ${res.status} ${await res.text()}`);
}

try {
  const { id: companyId } = await svc.deps.db
    .selectFrom('companies')
    .select('id')
    .where('cell_id', '=', 'cell-bench')
    .executeTakeFirstOrThrow();
  const baseline: number[] = [];
  const json: number[] = [];
  const jsonAgain: number[] = [];
  const csv: number[] = [];
  const csvAgain: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const base = people(`base${r}`);
    baseline.push(
      await time(() =>
        svc.deps.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('accounts')
            .values(
              base.map((p, i) => ({
                id: `acc_base${r}x${i}`,
                username: p.email,
                email: p.email,
                password_hash: null,
                status: 'pending' as const,
              })),
            )
            .execute();
          await trx
            .insertInto('licenses')
            .values(base.map((_, i) => ({ account_id: `acc_base${r}x${i}`, company_id: companyId, role: 'member' as const })))
            .execute();
        }),
      ),
    );
    const listed = people(`json${r}`);
    json.push(await time(() => call('POST', '/api/v1/developer/members/import', { source: 'bench', members: listed }, key)));
    jsonAgain.push(await time(() => call('POST', '/api/v1/developer/members/import', { source: 'bench', members: listed }, key)));
    const text = csvOf(people(`csv${r}`));
    csv.push(await time(() => importCsv(text)));
    csvAgain.push(await time(() => importCsv(text)));
  }
  const licenses = await sql<{ n: number }>`SELECT count(*)::int AS n FROM licenses`.execute(svc.deps.db);

  const base = median(baseline);
  const rows = [
    [`baseline: INSERT ${PEOPLE} accounts + licenses, one transaction`, base],
    [`import ${PEOPLE} people, JSON (all new)`, median(json)],
    [`same JSON again (all kept, nothing written)`, median(jsonAgain)],
    [`import ${PEOPLE} people, CSV (all new)`, median(csv)],
    [`same CSV again (all kept, nothing written)`, median(csvAgain)],
  ] as const;
  console.log(`members bench, ${rounds} rounds, medians (${licenses.rows[0]!.n} licenses at the end)`);
  for (const [name, ms] of rows) console.log(`${name.padEnd(62)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / base).toFixed(2)}x baseline`);
  for (const [name, ms] of rows.slice(1)) record({ name, value: ms, unit: 'ms', baseline: base });
} finally {
  await stop();
}
