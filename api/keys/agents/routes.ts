import { z } from 'zod';
import { issueAgentKey, listAgentKeys, revokeAgentKey } from '../../../domain/keys/index.ts';
import { CellId, KeyId } from '../../../schemas/identity.ts';
import { AgentKeySummary, IssueAgentKeyRequest, IssuedAgentKey } from '../../../schemas/ontology-actions.ts';
import { defineRoute } from '../../http/route.ts';

// Restricted agent keys (spec Authentication 7): a company's developers issue, list and revoke
// them. The keys authenticate like every key (api/auth/authenticate.ts); what they may do is
// domain/ontology/data-access.ts.

const NamespaceParams = z.strictObject({ namespace: CellId });
const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'organization_not_found'] as const;

export const issueAgentKeyRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/agent-keys/{namespace}',
  operationId: 'issueAgentKey',
  summary: 'Issue a restricted agent key for one of the company’s agents (developers)',
  description:
    'restrictions: operations (api:use-ontologies-read, api:use-ontologies-write; without the write operation the key is ' +
    'read-only), objectTypes (the only types it reads) and actionTypes (the only actions it runs). The key acts as a member, ' +
    'is an agent author (409 branch_required on the main definition) and ends with its issuer’s keys. Shown once; a dry run ' +
    'shows what would be issued, without a key.',
  tags: ['keys'],
  auth: 'credential',
  write: true,
  params: NamespaceParams,
  body: IssueAgentKeyRequest,
  response: { status: 201, description: 'The key, shown only here.', schema: IssuedAgentKey },
  errors: [...ERRORS, 'invalid_payload'],
  async handler({ db, principal, params, body, ip }) {
    const { issued, plan } = await issueAgentKey(db, principal, params.namespace, body, ip);
    return { data: issued, plan };
  },
});

export const listAgentKeysRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/agent-keys/{namespace}',
  operationId: 'listAgentKeys',
  summary: 'The company’s agent keys that are not revoked (prefix only; developers)',
  tags: ['keys'],
  auth: 'credential',
  params: NamespaceParams,
  response: { status: 200, description: 'Newest first.', schema: z.object({ keys: z.array(AgentKeySummary) }) },
  errors: [...ERRORS],
  handler: async ({ db, principal, params }) => ({ data: { keys: await listAgentKeys(db, principal, params.namespace) } }),
});

export const revokeAgentKeyRoute = defineRoute({
  method: 'delete',
  path: '/api/v1/developer/agent-keys/{namespace}/{keyId}',
  operationId: 'revokeAgentKey',
  summary: 'Revoke one of the company’s agent keys (idempotent; developers)',
  tags: ['keys'],
  auth: 'credential',
  write: true,
  params: NamespaceParams.extend({ keyId: KeyId }),
  response: {
    status: 200,
    description: 'The key is revoked (also when it already was).',
    schema: z.object({ keyId: z.string(), revoked: z.literal(true), alreadyRevoked: z.boolean() }),
  },
  errors: [...ERRORS, 'agent_key_not_found'],
  handler: async ({ db, principal, params, ip }) => ({ data: await revokeAgentKey(db, principal, params.namespace, params.keyId, ip) }),
});

export const agentKeyRoutes = [issueAgentKeyRoute, listAgentKeysRoute, revokeAgentKeyRoute];
