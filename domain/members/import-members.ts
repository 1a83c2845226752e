import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../security/index.ts';
import { type InvitationStatus, queueInvitations } from './invitations.ts';
import type { ImportPerson } from './read-member-list.ts';
import { accountsFor, formerMembers, licensesFor, lockSeats } from './repository.ts';

/**
 * The spec's situations, as the importing company may know them: `create` is a new license for a
 * person the company does not know (whether or not they have an account elsewhere on the platform,
 * and whatever its state), `grant` a new license for a former member of this company (one whose
 * license here was removed), `skip_disabled` a disabled account the company knows. `duplicate`
 * marks a repeat of an earlier row of the same list (counted once).
 */
export type ImportOutcome = 'create' | 'grant' | 'keep' | 'keep_developer' | 'skip_disabled' | 'conflict';
export const OUTCOMES: readonly ImportOutcome[] = ['create', 'grant', 'keep', 'keep_developer', 'skip_disabled', 'conflict'];

export interface ImportResult {
  source: string | null;
  dryRun: boolean;
  summary: Record<ImportOutcome, number>;
  seats: { limit: number | null; used: number; after: number };
  results: { row: number; email: string; outcome: ImportOutcome | 'duplicate'; accountId: string | null; reason?: string }[];
  /**
   * One invitation email per new license, queued to go out after the commit (the import never
   * waits for SMTP); never its link (that reaches only the person). Empty in a dry run.
   */
  invitations: { email: string; status: InvitationStatus }[];
}

type Account = Awaited<ReturnType<typeof accountsFor>>[number];
type Decision = ImportResult['results'][number] & {
  person: ImportPerson;
  setExternalId?: boolean;
  /** The account a new license goes to, if it exists (for `create`: not shown, even by id, before the write). */
  account?: Account;
};

/**
 * Imports a member list into a company in one transaction (spec Member import): a pending account
 * and a member license for a new email; a member license for an account of another company;
 * nothing for members, developers or staff (never downgraded) and disabled accounts. externalId
 * finds the same person again under another email, so no duplicate account is made. Each new
 * license takes a seat; when the seats do not suffice nothing changes. Running it again changes nothing.
 *
 * The answer tells the company nothing it does not know already (issue 28): an account elsewhere
 * on the platform, active, pending or disabled, is answered, licensed and invited exactly as a
 * new email is (`create`), and the member list shows it as pending (`member_invitations`) until
 * the person signs in. Platform staff are judged by their license here like anyone (staff is not a
 * company developer); without one they stay unchanged (spec: never given a company's license) as
 * `keep_developer`, with no account id, as the company does not know the account.
 */
export async function importMembers(
  db: DbOrTrx,
  ctx: { baseUrl: string; mailConfigured: boolean },
  input: { companyId: string; source: string | null; dryRun: boolean; people: ImportPerson[] },
): Promise<ImportResult> {
  const seats = await lockSeats(db, input.companyId);
  const emails = [...new Set(input.people.map((p) => p.email))];
  const externalIds = [...new Set(input.people.flatMap((p) => (p.externalId ? [p.externalId] : [])))];
  const byExternal = new Map((await licensesFor(db, input.companyId, [], externalIds)).map((l) => [l.external_id!, l.account_id]));
  const accounts = await accountsFor(db, emails, [...byExternal.values()]);
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const accountByEmail = new Map(accounts.map((a) => [a.email.toLowerCase(), a]));
  const usernames = new Set(accounts.map((a) => a.username.toLowerCase()));
  const licenses = new Map((await licensesFor(db, input.companyId, [...accountById.keys()], [])).map((l) => [l.account_id, l]));
  const former = await formerMembers(
    db,
    seats.company.cellId,
    [...accountById.keys()].filter((id) => !licenses.has(id)),
  );
  const known = (a: Account) => licenses.has(a.id) || former.has(a.id) || a.platform_staff;

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
    const byEmail = accountByEmail.get(person.email);
    // An account the company does not know is never named, nor a reason to refuse.
    const viaEmail = byEmail && known(byEmail) ? byEmail : undefined;
    if (viaExternal && viaEmail && viaExternal !== viaEmail.id) {
      return conflict(`externalId ${person.externalId} belongs to another account`, viaEmail.id);
    }
    const account = viaExternal ? accountById.get(viaExternal) : viaEmail;
    if (!account) return { ...base, outcome: 'create', ...(byEmail ? { account: byEmail } : {}) };
    const found = { ...base, accountId: account.id };
    const license = licenses.get(account.id);
    if (license && person.externalId && license.external_id && license.external_id !== person.externalId) {
      return conflict(`this member has externalId ${license.external_id}`, account.id);
    }
    if (!license && account.platform_staff) return { ...base, outcome: 'keep_developer' };
    if (license?.role === 'developer' || license?.admin) return { ...found, outcome: 'keep_developer' };
    // A member the company sees as pending (invited, not signed in since) stays that, whatever its account's state.
    if (license && (license.invited || account.status !== 'disabled')) {
      return { ...found, outcome: 'keep', setExternalId: Boolean(person.externalId && !license.external_id) };
    }
    if (account.status === 'disabled') return { ...found, outcome: 'skip_disabled' };
    return { ...found, outcome: 'grant', account };
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

  const invitees = input.dryRun ? [] : await write(db, input.companyId, decisions, usernames);
  return {
    source: input.source,
    dryRun: input.dryRun,
    summary,
    seats: seatView,
    results: decisions.map(({ person: _p, setExternalId: _s, account: _a, ...r }) => r),
    invitations: await queueInvitations(db, ctx, input.companyId, invitees),
  };
}

/** Writes the decisions; answers who is to be invited: every person given a new license. */
async function write(
  db: DbOrTrx,
  companyId: string,
  decisions: Decision[],
  usernames: Set<string>,
): Promise<{ accountId: string; email: string }[]> {
  const fresh = decisions.filter((d) => d.outcome === 'create' && !d.account);
  for (const d of decisions) if (d.outcome === 'create') d.accountId = d.account?.id ?? newId('acc');
  if (fresh.length > 0) {
    // Pending: no password, email unverified, cannot sign in until the invitation is used. The
    // username is the email unless an account already uses that as its username (no conflict: that
    // would tell the company about an account it does not know), then the account id.
    await db
      .insertInto('accounts')
      .values(
        fresh.map((d) => ({
          id: d.accountId!,
          username: usernames.has(d.email) ? d.accountId! : d.email,
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
    // The company sees each as pending, under the email and name it gave, until the person signs in.
    await db
      .insertInto('member_invitations')
      .values(granted.map((d) => ({ account_id: d.accountId!, company_id: companyId, name: d.person.name ?? null })))
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
  return granted.map((d) => ({ accountId: d.accountId!, email: d.account?.email ?? d.email }));
}
