import type { ShareView } from '../../schemas/sharing.ts';
import type { ShareAudience, ShareRole } from '../db/index.ts';

export interface ShareRow {
  id: string;
  audience: ShareAudience;
  role: ShareRole;
  token_prefix: string | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  account_id: string | null;
  username: string | null;
  cell_id: string | null;
  company_name: string | null;
  group_id: string | null;
  group_name: string | null;
}

export function shareView(row: ShareRow): ShareView {
  return {
    id: row.id,
    audience: row.audience,
    role: row.role,
    account: row.account_id && row.username ? { id: row.account_id, username: row.username } : null,
    company: row.cell_id && row.company_name ? { cellId: row.cell_id, name: row.company_name } : null,
    group: row.group_id && row.group_name ? { id: row.group_id, name: row.group_name } : null,
    linkPrefix: row.token_prefix,
    expiresAt: row.expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
