import { NAMESPACE_PATTERN, SLUG_PATTERN } from '../../schemas/manifest/index.ts';
import type { PublicAddresses } from '../deps.ts';

/** The MCP address of an app: the OAuth resource (RFC 8707) a token is bound to. */
export const mcpPath = (app: { namespace: string; slug: string }) => `/api/v1/developer/apps/${app.namespace}/${app.slug}/mcp`;
export const mcpResource = (addresses: PublicAddresses, app: { namespace: string; slug: string }) => `${addresses.baseUrl}${mcpPath(app)}`;

/** The app a resource names, when it is one of this service's MCP addresses. */
export function appOfResource(addresses: PublicAddresses, resource: string): { namespace: string; slug: string } | undefined {
  const prefix = `${addresses.baseUrl}/api/v1/developer/apps/`;
  if (!resource.startsWith(prefix) || !resource.endsWith('/mcp')) return undefined;
  const [namespace, slug, ...rest] = resource.slice(prefix.length, -'/mcp'.length).split('/');
  if (rest.length > 0 || !namespace || !slug) return undefined;
  return NAMESPACE_PATTERN.test(namespace) && SLUG_PATTERN.test(slug) ? { namespace, slug } : undefined;
}
