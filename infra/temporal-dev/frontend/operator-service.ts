// temporal.api.operatorservice.v1.OperatorService: the search-attribute calls. Custom search
// attributes are server-wide here (as with Temporal on Elasticsearch); the namespace, when given,
// must exist (namespace-validator.ts). The other OperatorService methods answer UNIMPLEMENTED.
import { IndexedValueType } from '../common/enums.ts';
import { invalidArgument } from '../common/errors.ts';
import type { ServerState } from '../namespace/registry.ts';
import { isSystemSearchAttribute, searchAttributeKeys } from '../visibility/query.ts';
import type { Handler } from './grpc-server.ts';

const KNOWN_TYPES = new Set(Object.values(IndexedValueType));

export function operatorServiceHandlers(server: ServerState): Record<string, Handler> {
  return {
    AddSearchAttributes: (req) => {
      const entries = Object.entries((req.searchAttributes ?? {}) as Record<string, number>);
      if (entries.length === 0) throw invalidArgument('SearchAttributes are not set on request.');
      for (const [name, type] of entries) {
        if (isSystemSearchAttribute(name) || name.startsWith('Temporal')) {
          throw invalidArgument(`Search attribute ${name} is reserved by system.`);
        }
        if (!KNOWN_TYPES.has(type)) throw invalidArgument(`Unknown search attribute type: ${type}.`);
      }
      // Adding one that exists is not an error; Temporal keeps the existing definition.
      for (const [name, type] of entries) if (!server.searchAttributeTypes.has(name)) server.addSearchAttribute(name, type);
      return {};
    },
    RemoveSearchAttributes: (req) => {
      const names = (req.searchAttributes ?? []) as string[];
      if (names.length === 0) throw invalidArgument('SearchAttributes are not set on request.');
      for (const name of names) {
        if (isSystemSearchAttribute(name)) throw invalidArgument(`Unable to remove non-custom search attributes: ${name}.`);
      }
      // Unknown names are skipped, as Temporal does.
      for (const name of names) server.removeSearchAttribute(name);
      return {};
    },
    ListSearchAttributes: () => {
      const all = searchAttributeKeys(server);
      const custom = Object.fromEntries(server.searchAttributeTypes);
      const system = Object.fromEntries(Object.entries(all).filter(([name]) => isSystemSearchAttribute(name)));
      return { customAttributes: custom, systemAttributes: system, storageSchema: {} };
    },
  };
}
