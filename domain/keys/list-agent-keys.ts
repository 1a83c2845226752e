import type { z } from 'zod';
import { type AgentKeySummary, AgentRestrictions } from '../../schemas/ontology-actions.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { agentKeyCompany } from './agent-key-company.ts';

/** The company's live agent keys, newest first (prefix only), whoever issued them. */
export async function listAgentKeys(db: DbOrTrx, principal: Principal, namespace: string): Promise<z.input<typeof AgentKeySummary>[]> {
  const company = await agentKeyCompany(db, principal, namespace);
  const rows = await db
    .selectFrom('developer_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.id',
      'k.display_prefix',
      'k.agent_id',
      'k.client_name',
      'k.restrictions',
      'k.created_at',
      'k.last_used_at',
      'a.id as account_id',
      'a.username',
    ])
    .where('k.company_id', '=', company.id)
    .where('k.agent_id', 'is not', null)
    .where('k.revoked_at', 'is', null)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.display_prefix,
    agentId: r.agent_id!,
    clientName: r.client_name,
    restrictions: AgentRestrictions.parse(r.restrictions),
    issuedBy: { id: r.account_id, username: r.username },
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
  }));
}
