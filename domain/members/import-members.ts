import type { MailMessage } from '../app-workflows/mailer.ts';
import type { DbOrTrx } from '../db/database.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/random.ts';
import { type InvitationStatus, type Invitee, invitationMails } from './invitations.ts';
import type { ImportPerson } from './read-member-list.ts';
import { accountsFor, licensesFor, lockSeats } from './repository.ts';

/** The spec's situations; `duplicate` marks a repeat of an earlier row of the same list (counted once). */
export type ImportOutcome = 'create' | 'grant' | 'keep' | 'keep_developer' | 'skip_disabled' | 'conflict';
export const OUTCOMES: readonly ImportOutcome[] = ['create', 'grant', 'keep', 'keep_developer', 'skip_disabled', 'conflict'];

export interface ImportResult {
  source: string | null;
  dryRun: boolean;
  summary: Record<ImportOutcome, number>;
  seats: { limit: number | null; used: number; after: number };
  results: { row: number; email: string; outcome: ImportOutcome | 'duplicate'; accountId: string | null; reason?: string }[];
  /**
   * One invitation email per new license, filled in after the commit; never its link (that reaches
   * only the person). Empty in a dry run.
   */
  invitations: { email: string; status: InvitationStatus }[];
}

type Decision = ImportResult['results'][number] & { person: ImportPerson; setExternalId?: boolean };

/**
 * Imports a member list into a company in one transaction (spec Member import): a pending account
 * and a member license for a new email; a member license for an account of another company;
 * nothing for members, developers or staff (never downgraded) and disabled accounts. externalId
 * finds the same person again under another email, so no duplicate account is made. Each new
 * license takes a seat; when the seats do not suffice nothing changes. Running it again changes nothing.
 */
export async function importMembers(
  db: DbOrTrx,
  ctx: { clock: Clock; baseUrl: string },
  input: { companyId: string; source: string | null; dryRun: boolean; people: ImportPerson[] },
): Promise<{ result: ImportResult; messages: MailMessage[] }> {
  const seats = await lockSeats(db, input.companyId);
  const emails = [...new Set(input.people.map((p) => p.email))];
  const externalIds = [...new Set(input.people.flatMap((p) => (p.externalId ? [p.externalId] : [])))];
  const byExternal = new Map((await licensesFor(db, input.companyId, [], externalIds)).map((l) => [l.external_id!, l.account_id]));
  const accounts = await accountsFor(db, emails, [...byExternal.values()]);
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const accountByEmail = new Map(accounts.map((a) => [a.email.toLowerCase(), a]));
  const usernames = new Set(accounts.map((a) => a.username.toLowerCase()));
  const licenses = new Map((await licensesFor(db, input.companyId, [...accountById.keys()], [])).map((l) => [l.account_id, l]));

  const seenEmail = new Map<string, number>();
  const seenExternal = new Map<string, string>();
  const decisions: Decision[] = input.people.map((person, row) => {
    const base = { row, email: person.email, person, accountId: null as string | null };
    const conflict = (reason: string, accountId: string | null = null): Decision => ({ ...base, accountId, outcome: 'conflict', reason });
    const earlier = seenEmail.get(person.email);
    if (earlier !== undefined) {
      const first = input.people[earlier]!;
      if (person.externalId && first.externalId && person.externalId !== first.externalId) {
        return conflict(`row ${earlier} has the same email with externalId ${first.externalId}`);
      }
      return { ...base, outcome: 'duplicate', reason: `same person as row ${earlier}` };
    }
    seenEmail.set(person.email, row);
    if (person.externalId) {
      const other = seenExternal.get(person.externalId);
      if (other !== undefined) return conflict(`externalId ${person.externalId} is also given to ${other}`);
      seenExternal.set(person.externalId, person.email);
    }
    const viaExternal = person.externalId ? byExternal.get(person.externalId) : undefined;
    const viaEmail = accountByEmail.get(person.email);
    if (viaExternal && viaEmail && viaExternal !== viaEmail.id) {
      return conflict(`externalId ${person.externalId} belongs to another account`, viaEmail.id);
    }
    const account = viaExternal ? accountById.get(viaExternal) : viaEmail;
    if (!account) {
      if (usernames.has(person.email)) return conflict('another account uses this email as its username');
      return { ...base, outcome: 'create' };
    }
    const found = { ...base, accountId: account.id };
    if (account.status === 'disabled') return { ...found, outcome: 'skip_disabled' };
    const license = licenses.get(account.id);
    if (license && person.externalId && license.external_id && license.external_id !== person.externalId) {
      return conflict(`this member has externalId ${license.external_id}`, account.id);
    }
    if (account.platform_staff || license?.role === 'developer' || license?.admin) return { ...found, outcome: 'keep_developer' };
    if (license) return { ...found, outcome: 'keep', setExternalId: Boolean(person.externalId && !license.external_id) };
    return { ...found, outcome: 'grant' };
  });

  const summary = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<ImportOutcome, number>;
  for (const d of decisions) if (d.outcome !== 'duplicate') summary[d.outcome]++;
  const after = seats.used + summary.create + summary.grant;
  const seatView = { limit: seats.limit, used: seats.used, after };
  if (seats.limit !== null && after > seats.limit) {
    throw new DomainError(
      'conflict',
      `Not enough seats: the import needs ${after - seats.used} new seats but ${Math.max(0, seats.limit - seats.used)} are free ` +
        `(limit ${seats.limit}, used ${seats.used}). Nothing was imported.`,
      { details: { reason: 'seats_insufficient', seats: seatView, summary, missing: after - seats.limit } },
    );
  }

  const invitees = input.dryRun ? [] : await write(db, input.companyId, decisions);
  const messages = await invitationMails(db, ctx, seats.company, invitees);
  return {
    result: {
      source: input.source,
      dryRun: input.dryRun,
      summary,
      seats: seatView,
      results: decisions.map(({ person: _p, setExternalId: _s, ...r }) => r),
      invitations: [],
    },
    messages,
  };
}

/** Writes the decisions; answers who is to be invited. */
async function write(db: DbOrTrx, companyId: string, decisions: Decision[]): Promise<Invitee[]> {
  const created = decisions.filter((d) => d.outcome === 'create');
  for (const d of created) d.accountId = newId('acc');
  if (created.length > 0) {
    // Pending: no password, email unverified, cannot sign in until the invitation is used.
    await db
      .insertInto('accounts')
      .values(
        created.map((d) => ({
          id: d.accountId!,
          username: d.email,
          email: d.email,
          password_hash: null,
          status: 'pending' as const,
          display_name: d.person.name ?? null,
        })),
      )
      .execute();
  }
  const granted = decisions.filter((d) => d.outcome === 'create' || d.outcome === 'grant');
  if (granted.length > 0) {
    await db
      .insertInto('licenses')
      .values(
        granted.map((d) => ({
          account_id: d.accountId!,
          company_id: companyId,
          role: 'member' as const,
          external_id: d.person.externalId ?? null,
        })),
      )
      .execute();
  }
  for (const d of decisions.filter((x) => x.setExternalId)) {
    await db
      .updateTable('licenses')
      .set({ external_id: d.person.externalId! })
      .where('company_id', '=', companyId)
      .where('account_id', '=', d.accountId!)
      .execute();
  }
  return created.map((d) => ({ accountId: d.accountId!, email: d.email, pending: true }));
}
