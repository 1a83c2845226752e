import type { CreateProposalInput, ProposalView } from '../../schemas/evolve.ts';
import { problem } from '../../schemas/problems.ts';
import { callerAccess, type HostedApp } from '../apps/index.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { assertDeclared } from './declared.ts';
import { governingVersion, namedApp } from './evolve-app.ts';
import { findProposal, proposalView } from './repository.ts';

type Author = { kind: 'developer' | 'agent' | 'member' | 'suggest'; agent: string | null };

/** Who writes: an app's page (its ticket) as a member, a key with an agent acting through it as an agent, else a developer. */
const authorOf = (principal: Principal): Author =>
  principal.kind === 'ticket'
    ? { kind: 'member', agent: null }
    : principal.kind === 'key' && principal.agent
      ? { kind: 'agent', agent: principal.agent.id }
      : { kind: 'developer', agent: null };

/**
 * The app a caller proposes for: its developers (key or web session, an agent author included)
 * propose for anyone; an app's page (its ticket) proposes only for its own visitor's view.
 */
async function proposingApp(deps: { db: DbOrTrx; clock: Clock }, principal: Principal, namespace: string, input: CreateProposalInput) {
  if (principal.kind !== 'ticket') {
    authorize(principal, 'company.manage', { namespace });
    return namedApp(deps.db, namespace, input.slug);
  }
  const app = await namedApp(deps.db, namespace, input.slug);
  const channel = principal.ticket.channel;
  authorize(principal, 'app.call', { app, channel, access: await callerAccess(deps, principal, app, channel) });
  if (input.scope !== 'personal' || (input.account !== undefined && input.account !== principal.account.id)) {
    throw new DomainError('forbidden', 'An app page proposes only personal changes, for its own visitor.', {
      details: { required: 'developer', scope: input.scope },
    });
  }
  return app;
}

/** Stores an open proposal after checking its changes against the app's declared tokens and slots. */
export async function createProposal(
  deps: { db: DbOrTrx; clock: Clock },
  principal: Principal,
  namespace: string,
  input: CreateProposalInput,
  author: Author = authorOf(principal),
): Promise<ProposalView> {
  const app = await proposingApp(deps, principal, namespace, input);
  return storeProposal(deps.db, principal, app, input, author);
}

/** The checks and the row every proposal goes through (created, or suggested). */
export async function storeProposal(
  db: DbOrTrx,
  principal: Principal,
  app: HostedApp,
  input: CreateProposalInput,
  author: Author,
): Promise<ProposalView> {
  assertDeclared((await governingVersion(db, app)).manifest, input.changes);
  const account = input.scope === 'personal' ? (input.account ?? principal.account.id) : null;
  if (input.scope === 'company' && input.account !== undefined) {
    throw new DomainError('invalid_payload', 'A company-wide proposal names no account.', {
      details: { problems: [problem('account', 'not_allowed', 'only personal proposals name an account')] },
    });
  }
  if (account !== null && !(await db.selectFrom('accounts').select('id').where('id', '=', account).executeTakeFirst())) {
    throw new DomainError('invalid_payload', `No account ${account}.`, {
      details: { problems: [problem('account', 'not_found', 'no such account')] },
    });
  }
  await assertEvidenceOfApp(db, app, input.evidence);
  const id = newId('evp');
  await db
    .insertInto('evolve_proposals')
    .values({
      id,
      app_id: app.id,
      scope: input.scope,
      account_id: account,
      author_kind: author.kind,
      author_account_id: principal.account.id,
      author_agent: author.agent,
      title: input.title,
      rationale: input.rationale ?? null,
      changes: JSON.stringify(input.changes),
      evidence: JSON.stringify(input.evidence),
    })
    .execute();
  return proposalView(await findProposal(db, { namespace: app.namespace, id }));
}

/** Evidence names events of this app's log only. */
async function assertEvidenceOfApp(db: DbOrTrx, app: HostedApp, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const found = await db.selectFrom('app_log_events').select('id').where('app_id', '=', app.id).where('id', 'in', ids).execute();
  const known = new Set(found.map((r) => r.id));
  const problems = ids.flatMap((id, i) =>
    known.has(id) ? [] : [problem(`evidence.${i}`, 'not_found', `no event ${id} in this app's log`)],
  );
  if (problems.length) throw new DomainError('invalid_payload', 'Evidence names events of this app’s log.', { details: { problems } });
}
