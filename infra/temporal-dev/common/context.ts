// What every component may use of the server: its clock, log, limits and settings and the search
// attributes registered, and nothing of namespaces or runs (those come through each folder's own context).
import type { VirtualClock } from './clock.ts';
import type { DynamicConfig } from './dynamic-config.ts';
import type { Limits } from './limits.ts';
import type { Logger } from './log.ts';

export interface ServerContext {
  /** Goes into task tokens, so tokens issued before a restart are told apart. */
  readonly bootId: string;
  readonly clock: VirtualClock;
  readonly log: Logger;
  readonly limits: Limits;
  readonly dynamicConfig: DynamicConfig;
  /** Custom search attribute names and IndexedValueType (--search-attribute, the option, OperatorService). */
  readonly searchAttributeTypes: ReadonlyMap<string, number>;
}
