// temporal.api.operatorservice.v1.OperatorService handlers: the search attribute listing (which
// the Web UI reads on every namespace page). The rest of the service answers UNIMPLEMENTED.
import { requireField } from './errors.ts';
import type { Handler } from './grpc-server.ts';
import type { ServerState } from './namespaces.ts';
import { searchAttributeKeys } from './visibility.ts';

export function operatorServiceHandlers(server: ServerState): Record<string, Handler> {
  return {
    ListSearchAttributes: (req) => {
      server.namespace(requireField<string>(req.namespace, 'Namespace'));
      const systemAttributes = Object.fromEntries(
        Object.entries(searchAttributeKeys(server)).filter(([name]) => !server.searchAttributeTypes.has(name)),
      );
      return { customAttributes: Object.fromEntries(server.searchAttributeTypes), systemAttributes };
    },
  };
}
