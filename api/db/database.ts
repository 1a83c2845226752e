import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

// The typed map of every table. Each capability adds its tables here together
// with a new migration; migrations themselves are frozen once landed.

export interface ServiceInstanceTable {
  /** Always 1: the table holds exactly one row describing this installation. */
  singleton: ColumnType<number, number | undefined, never>;
  instance_id: string;
  created_at: Generated<Date>;
}

export interface Database {
  service_instance: ServiceInstanceTable;
}

export type Db = Kysely<Database>;
/** Repository functions take either the pool or an open transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
