import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuild, createConnection, createSync, getBuild, runSyncJob, testConnection } from '../../../domain/connectivity/index.ts';
import { findObjectTypeRecord, findOntologyOfCompany, objectTable } from '../../../domain/ontology/index.ts';
import type { CreateSyncInput } from '../../../schemas/connectivity.ts';
import { testConnectivity } from '../../support/connectivity.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { define, insertCompanyWithDeveloper, type OntologyFixture, SALES } from '../../support/ontology.ts';
import { S3_BUCKET, startS3Server, type TestS3 } from '../../support/s3.ts';

// Syncs from files in a bucket (a real S3-protocol server on loopback) and from an HTTPS JSON
// endpoint (a real HTTP server on loopback), one job run as the workflow's activity runs it: CSV
// text converted to the properties' types, incremental by file name, JSON lines, an array found
// at its path.

let database: TestDatabase;
let s3: TestS3;
let endpoint: http.Server;
let acme: OntologyFixture;
const connectivity = testConnectivity();

beforeAll(async () => {
  database = await createTestDatabase();
  acme = await insertCompanyWithDeveloper(database.db, 'cell-acme');
  await define(database.db, acme, SALES);
  s3 = await startS3Server();
  endpoint = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ data: { items: [{ id: 'c1', name: 'Ada', tier: '2' }, { id: 'c2', name: 'Grace', tier: 3 }, 'not a record'] } }),
    );
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await s3?.close();
  endpoint?.close();
  await database?.drop();
});

const put = (key: string, body: string) =>
  new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  }).send(new PutObjectCommand({ Bucket: S3_BUCKET, Key: key, Body: body }));

/** A build of one sync, its job run to its end as the activity runs it; the build's record after. */
async function runOnce(syncId: string) {
  const build = await createBuild(database.db, acme.developer, 'cell-acme', { jobs: [{ syncId, dependsOn: [] }] });
  await runSyncJob(database.db, connectivity, { buildId: build.id, position: 0 }, { heartbeat: () => {} });
  return getBuild(database.db, acme.developer, 'cell-acme', build.id);
}

async function objects(apiName: string) {
  const ontology = (await findOntologyOfCompany(database.db, acme.companyId))!;
  const type = (await findObjectTypeRecord(database.db, ontology.id, apiName))!;
  return (await sql<Record<string, unknown>>`SELECT * FROM ${objectTable(ontology, type)} ORDER BY 1`.execute(database.db)).rows;
}

const syncInput = (
  input: Partial<CreateSyncInput> & Pick<CreateSyncInput, 'name' | 'connectionId' | 'source' | 'mapping'>,
): CreateSyncInput => ({
  objectType: 'sales.Order',
  mode: 'full',
  pageSize: 3,
  schedule: null,
  ...input,
});

describe('file and endpoint syncs', () => {
  it('syncs CSV files of a bucket by pattern, incrementally by file name, the text converted to each property’s type', async () => {
    await put(
      'exports/orders-2026-01.csv',
      'number,amount,paid,placed\n1,10.5,true,2026-01-03\n2,20,false,2026-01-04\n3,30,t,2026-01-05\n4,40,f,2026-01-06\n',
    );
    await put('exports/orders-2026-02.csv', '\uFEFFnumber,amount,paid,placed\r\n5,50,true,2026-02-01\r\n');
    await put('exports/notes.txt', 'not a match');
    const connection = await createConnection(database.db, connectivity, acme.developer, 'cell-acme', {
      kind: 's3',
      name: 'exports',
      bucket: S3_BUCKET,
      prefix: 'exports',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    expect(connection).toMatchObject({ hasSecret: true, settings: { bucket: S3_BUCKET, prefix: 'exports', accessKeyId: 'S3RVER' } });
    expect(JSON.stringify(connection)).not.toContain('secretAccessKey');
    const tested = await testConnection(database.db, connectivity, acme.developer, 'cell-acme', connection.id);
    expect(tested).toMatchObject({ ok: true, message: `Listed s3://${S3_BUCKET}/exports/: 3 files.` });

    const sync = await createSync(
      database.db,
      acme.developer,
      'cell-acme',
      syncInput({
        name: 'csv-orders',
        connectionId: connection.id,
        source: { pattern: 'orders-*.csv', format: 'csv' },
        mapping: { number: 'number', amount: 'amount', paid: 'paid', placed: 'placed' },
        mode: 'incremental',
      }),
    );
    const first = await runOnce(sync.id);
    expect(first.jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 5, rowsWritten: 5, pages: 2 });
    expect(
      (await objects('sales.Order')).map((o) => [Number(o.number), o.amount, o.paid, (o.placed as Date).toISOString().slice(0, 10)]),
    ).toEqual([
      [1, 10.5, true, '2026-01-03'],
      [2, 20, false, '2026-01-04'],
      [3, 30, true, '2026-01-05'],
      [4, 40, false, '2026-01-06'],
      [5, 50, true, '2026-02-01'],
    ]);

    await put('exports/orders-2026-03.csv', 'number,amount,paid,placed\n6,60,false,2026-03-01\n2,21,false,2026-01-04\n');
    const second = await runOnce(sync.id);
    expect(second.jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 2, rowsWritten: 2 });
    const after = await objects('sales.Order');
    expect(after).toHaveLength(6);
    expect(after.find((o) => Number(o.number) === 2)).toMatchObject({ amount: 21 });
  });

  it('syncs JSON lines, and fails the job with the file and line of one that is not JSON', async () => {
    await put('lines/a.jsonl', '{"n":100,"note":"first"}\n\n{"n":101,"note":"second"}\n');
    await put('lines/b.jsonl', '{"n":102,"note":"third"}\nnot json\n');
    const connection = await createConnection(database.db, connectivity, acme.developer, 'cell-acme', {
      kind: 's3',
      name: 'lines',
      bucket: S3_BUCKET,
      prefix: 'lines/',
      region: 'us-east-1',
      endpoint: s3.endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    const good = await createSync(
      database.db,
      acme.developer,
      'cell-acme',
      syncInput({
        name: 'lines-a',
        connectionId: connection.id,
        source: { pattern: 'a.jsonl', format: 'jsonl' },
        mapping: { number: 'n', note: 'note' },
      }),
    );
    expect((await runOnce(good.id)).jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 2 });
    const bad = await createSync(
      database.db,
      acme.developer,
      'cell-acme',
      syncInput({
        name: 'lines-all',
        connectionId: connection.id,
        source: { pattern: '*.jsonl', format: 'jsonl' },
        mapping: { number: 'n', note: 'note' },
      }),
    );
    const failed = await runOnce(bad.id);
    expect(failed.status).toBe('QUEUED');
    expect(failed.jobs[0]).toMatchObject({
      status: 'FAILED',
      error: { code: 'invalid_payload', message: 'lines/b.jsonl: line 2 is not JSON' },
    });
  });

  it('syncs the array an HTTPS endpoint answers at its items path, skipping what is not a record', async () => {
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/customers`;
    const connection = await createConnection(database.db, connectivity, acme.developer, 'cell-acme', { kind: 'https', name: 'crm', url });
    const sync = await createSync(
      database.db,
      acme.developer,
      'cell-acme',
      syncInput({
        name: 'crm-customers',
        connectionId: connection.id,
        objectType: 'sales.Customer',
        source: { itemsPath: 'data.items' },
        mapping: { id: 'id', name: 'name', tier: 'tier' },
      }),
    );
    expect((await runOnce(sync.id)).jobs[0]).toMatchObject({ status: 'SUCCEEDED', rowsRead: 2, rowsWritten: 2 });
    expect((await objects('sales.Customer')).map((c) => [c.id, c.name, c.tier])).toEqual([
      ['c1', 'Ada', 2],
      ['c2', 'Grace', 3],
    ]);
  });
});
