import { randomUUID } from 'node:crypto';
import type { DbOrTrx } from '../db/index.ts';

export interface Instance {
  instanceId: string;
  createdAt: Date;
}

export async function readInstance(db: DbOrTrx): Promise<Instance> {
  const row = await db.selectFrom('service_instance').select(['instance_id', 'created_at']).executeTakeFirstOrThrow();
  return { instanceId: row.instance_id, createdAt: row.created_at };
}

/** This installation's id: written on first start, the same after every restart. */
export async function ensureInstance(db: DbOrTrx): Promise<Instance> {
  await db
    .insertInto('service_instance')
    .values({ instance_id: randomUUID() })
    .onConflict((oc) => oc.column('singleton').doNothing())
    .execute();
  return readInstance(db);
}
