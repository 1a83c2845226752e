// The namespace check that Temporal's frontend runs before every call (its NamespaceValidator
// interceptor): a request with a task token is checked against the token's namespace, any other
// request with a `namespace` field against that. It is driven by the request types, so every
// handler, present or future, gets it over gRPC and HTTP alike.
import { invalidArgument } from '../common/errors.ts';
import { lookupService, type Msg } from '../common/proto.ts';
import { decodeToken } from '../common/tokens.ts';
import type { ServerState } from '../namespace/registry.ts';

/** Methods that name a namespace that need not exist (or may name none), as in Temporal. */
const OWN_RULES = new Set(['RegisterNamespace', 'DescribeNamespace']);
/** Search-attribute calls: the namespace is optional, but must exist when given. */
const OPTIONAL = new Set(['AddSearchAttributes', 'RemoveSearchAttributes', 'ListSearchAttributes']);

/** A check per method of `serviceName`, throwing what Temporal's interceptor answers. */
export function namespaceChecks(server: ServerState, serviceName: string): Map<string, (req: Msg) => void> {
  const checks = new Map<string, (req: Msg) => void>();
  for (const method of Object.values(lookupService(serviceName).methods)) {
    method.resolve();
    const fields = (method.resolvedRequestType as unknown as { fields: Record<string, unknown> }).fields;
    const name = method.name;
    if (fields.taskToken) {
      checks.set(name, (req) => {
        // A namespace named in the request must exist before the token is read: Temporal's
        // handover interceptor looks it up ahead of the validator that deserializes the token.
        if (req.namespace) server.namespace(req.namespace);
        const token = decodeToken(req.taskToken, server.namespaces.values());
        server.namespace(token.namespace);
        // frontend.enableTokenNamespaceEnforcement: a token may not be used in another (existing) namespace.
        if (
          req.namespace &&
          req.namespace !== token.namespace &&
          server.namespaces.has(req.namespace) &&
          server.dynamicConfig.get('frontend.enableTokenNamespaceEnforcement')
        ) {
          throw invalidArgument('Operation requested with a token from a different namespace.');
        }
      });
    } else if (fields.namespace && !OWN_RULES.has(name)) {
      const optional = OPTIONAL.has(name);
      checks.set(name, (req) => {
        if (!req.namespace) {
          if (optional) return;
          throw invalidArgument('Namespace not set on request.');
        }
        server.namespace(req.namespace);
      });
    }
  }
  return checks;
}
