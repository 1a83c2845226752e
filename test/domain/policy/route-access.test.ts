import { describe, expect, it } from 'vitest';
import { routes } from '../../../api/routes.ts';
import { ROUTE_ACCESS } from '../../../domain/policy/route-access.ts';

// The route table is THE admission contract (and the matrix test's source of expected answers):
// every operation of the OpenAPI document has exactly one entry, none is left over, and routes that
// read no credential admit anonymous callers only.

describe('the route table', () => {
  it('has an entry for every route’s operationId', () => {
    const missing = routes.map((r) => r.operationId).filter((id) => !(id in ROUTE_ACCESS));
    expect(missing).toEqual([]);
  });

  it('has no orphaned entry', () => {
    const ids = new Set(routes.map((r) => r.operationId));
    expect(Object.keys(ROUTE_ACCESS).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('admits anonymous callers exactly on the routes that read no credential, and something everywhere', () => {
    for (const route of routes) {
      const access = ROUTE_ACCESS[route.operationId]!;
      expect(access.admits.length, route.operationId).toBeGreaterThan(0);
      if (route.auth === 'none') expect(access.admits, route.operationId).toEqual(['anonymous']);
      else expect(access.admits, route.operationId).not.toContain('anonymous');
    }
  });

  it('lists as denied inside only kinds the door admits (the rest are refused there already)', () => {
    for (const [id, access] of Object.entries(ROUTE_ACCESS)) {
      expect(
        (access.deniedInside ?? []).filter((k) => !access.admits.includes(k)),
        id,
      ).toEqual([]);
    }
  });

  it('never admits agent keys outside the ontology’s data, nor app credentials to sharing or resources', () => {
    const agentRoutes = Object.entries(ROUTE_ACCESS)
      .filter(([, a]) => a.admits.some((k) => k.startsWith('agent-key')))
      .map(([id]) => id);
    const dataRoutes = routes
      .filter((r) => r.path.startsWith('/api/v1/ontolog') || r.path === '/api/v1/sqlQueries/executeOntology')
      .map((r) => r.operationId);
    expect(agentRoutes.filter((id) => id !== 'getMe' && !dataRoutes.includes(id))).toEqual([]);
    for (const id of ['createShare', 'listShares', 'revokeShare', 'setResourceTier', 'addResourceRole']) {
      expect(
        ROUTE_ACCESS[id]!.admits.filter((k) => k.endsWith('-ticket') || k.endsWith('-app-token') || k.startsWith('agent-key')),
        id,
      ).toEqual([]);
    }
  });
});
