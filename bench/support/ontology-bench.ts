// The set-up of the benches that measure the data layer directly (no HTTP): an embedded
// PostgreSQL of their own, migrated, with one company, its developer and one object type
// `bench.Item` of the given properties.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, type Db, migrateToLatest } from '../../domain/db/index.ts';
import { systemClock } from '../../domain/deps.ts';
import { defineObjectTypes, findObjectTypeRecord, findOntologyOfCompany } from '../../domain/ontology/index.ts';
import type { Principal } from '../../domain/principal.ts';
import { startEmbeddedPostgres } from '../../infra/postgres/embedded-postgres.ts';

type Properties = Record<string, { dataType: { type: string } }>;

export async function startOntologyBench(name: string, properties: Properties) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `svc-bench-${name}-`));
  await fs.chmod(dataDir, 0o755);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg') });
  const db: Db = connectDatabase({ connectionString: pg.url, statementTimeoutMs: 600_000 });
  const stop = async () => {
    await db.destroy();
    await pg.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    await migrateToLatest(db);
    await db.insertInto('companies').values({ id: 'org_bench', cell_id: 'cell-bench', name: 'Bench' }).execute();
    await db
      .insertInto('accounts')
      .values({ id: 'acc_bench', username: 'bench', email: 'bench@example.com', status: 'active', password_hash: null, locked_until: null })
      .execute();
    await db.insertInto('licenses').values({ account_id: 'acc_bench', company_id: 'org_bench', role: 'developer' }).execute();
    await db.transaction().execute((trx) =>
      defineObjectTypes({ db: trx, clock: systemClock }, BENCH_DEVELOPER, 'cell-bench', {
        types: [{ apiName: 'bench.Item', primaryKey: 'id', properties }],
      }),
    );
    const ontology = (await findOntologyOfCompany(db, 'org_bench'))!;
    const type = (await findObjectTypeRecord(db, ontology.id, 'bench.Item'))!;
    return { db, ontology, type, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const BENCH_DEVELOPER: Principal = {
  kind: 'key',
  account: { id: 'acc_bench', username: 'bench', email: 'bench@example.com', platformStaff: false },
  company: { id: 'org_bench', cellId: 'cell-bench', name: 'Bench' },
  role: 'developer',
  key: { id: 'key_bench', displayPrefix: 'svc-dk-bench' },
};
