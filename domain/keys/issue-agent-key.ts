import type { z } from 'zod';
import type { IssueAgentKeyRequest, IssuedAgentKey } from '../../schemas/ontology-actions.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { newId, sha256 } from '../security/index.ts';
import { recordSecurityEvent } from '../security-events/index.ts';
import { agentKeyCompany } from './agent-key-company.ts';
import { generateKey } from './key-format.ts';

/**
 * A restricted agent key (spec Authentication 7) for one of the company's agents: a key of the
 * issuing developer's account with the member role, the agent and its restrictions, so it ends
 * with that account's keys (password change, license removed). Stored as a hash; shown once.
 */
export async function issueAgentKey(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  input: z.output<typeof IssueAgentKeyRequest>,
  ip: string,
): Promise<{ issued: z.input<typeof IssuedAgentKey>; plan: unknown }> {
  const company = await agentKeyCompany(db, principal, namespace);
  const { plaintext, displayPrefix } = generateKey();
  const id = newId('key');
  const clientName = input.clientName ?? `agent ${input.agentId}`;
  const row = await db
    .insertInto('developer_keys')
    .values({
      id,
      hash: sha256(plaintext),
      display_prefix: displayPrefix,
      account_id: principal.account.id,
      company_id: company.id,
      role: 'member',
      client_name: clientName,
      issued_by: 'agent',
      agent_id: input.agentId,
      restrictions: JSON.stringify(input.restrictions),
    })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  await recordSecurityEvent(db, {
    kind: 'key_issued',
    accountId: principal.account.id,
    ip,
    details: { keyId: id, prefix: displayPrefix, companyId: company.id, role: 'member', issuedBy: 'agent', agentId: input.agentId },
  });
  const summary = {
    keyId: id,
    prefix: displayPrefix,
    agentId: input.agentId,
    clientName,
    restrictions: input.restrictions,
    issuedBy: { id: principal.account.id, username: principal.account.username },
    createdAt: row.created_at.toISOString(),
    lastUsedAt: null,
  };
  return { issued: { ...summary, key: plaintext }, plan: { wouldIssue: { ...summary, keyId: undefined, prefix: undefined } } };
}
