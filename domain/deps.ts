import type { Logger } from 'pino';
import type { Db } from './db/database.ts';
import type { ScryptParams } from './security/password-hash.ts';

/** The spec's {base_url}, {production_base} and {developer_base}. */
export interface PublicAddresses {
  baseUrl: string;
  productionBase: string;
  developerBase: string;
}

/** What use cases may reach beyond their `db | trx` argument; built once by the composition root. */
export interface DomainDeps {
  db: Db;
  logger: Logger;
  /** Known once the HTTP server listens (derived from its address unless configured). */
  addresses(): PublicAddresses;
  /** scrypt cost for new password hashes: production parameters unless a test lowers them. */
  passwordHashing: ScryptParams;
}
