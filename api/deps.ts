import type { Logger } from 'pino';
import type { Config, PublicAddresses } from './config.ts';
import type { Db } from './db/database.ts';
import type { ScryptParams } from './security/password-hash.ts';
import type { WorkflowGateway } from '../worker/workflow-gateway.ts';

/** What handlers and use cases may reach, built once at start. */
export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** {base_url}, {production_base}, {developer_base}; known once the server listens. */
  addresses(): PublicAddresses;
  /** scrypt cost for new password hashes: production parameters unless a test lowers them. */
  passwordHashing: ScryptParams;
  /** Starts and signals the long-running processes on Temporal. */
  workflows: WorkflowGateway;
}
