import type { z } from 'zod';
import type { AppCard } from '../../schemas/app-surface.ts';
import { appRows } from '../apps/index.ts';
import { listBillingRecords } from '../billing/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize, can } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { useLast7Days } from './use-last-7-days.ts';

type Row = Awaited<ReturnType<typeof appRows>>[number];

/** The card's fields that come from the version shown (production, else the newest upload). */
export function headline(row: Row) {
  const m = row.manifest;
  return {
    sdk: { registered: m.sdk, used: row.sdkUsed },
    access: { scope: m.auth.access, publicLink: m.auth.publicLink },
    exports: m.exports.map((e) => e.name),
  };
}

/** Only a ticket's own app (checked by authentication) or an app of a key's company. */
function assertCardReader(principal: Principal, namespace: string): void {
  if (principal.kind !== 'ticket') authorize(principal, 'company.read', { namespace: namespace });
}

/**
 * GET …/card: owner, versions, registered and used SDKs, data read and written, exports and
 * dependencies, access scope, 7-day use, and for company developers this month's spend.
 */
export function describeCard(deps: DomainDeps, principal: Principal, app: { namespace: string; slug: string }) {
  assertCardReader(principal, app.namespace);
  return cardOf(deps, principal, app);
}

/** The card page of the developer tree: the company's developers only, by key or web session, always with the spend. */
export function describeCardPage(deps: DomainDeps, principal: Principal, app: { namespace: string; slug: string }) {
  authorize(principal, 'app.read-card', { namespace: app.namespace });
  return cardOf(deps, principal, app);
}

async function cardOf(deps: DomainDeps, principal: Principal, app: { namespace: string; slug: string }): Promise<z.input<typeof AppCard>> {
  const [row] = await appRows(deps.db, [app.namespace], app.slug);
  if (!row) throw new DomainError('app_not_found', `No app ${app.namespace}/${app.slug}.`);
  const m = row.manifest;
  const now = deps.clock.now();
  const use = (await useLast7Days(deps.db, [row.id], now)).get(row.id)!;
  const month = now.toISOString().slice(0, 7);
  const developer = principal.kind !== 'ticket' && can(principal, 'company.manage', { namespace: app.namespace });
  const spend = developer
    ? {
        month,
        totalMicroUsd: (await listBillingRecords(deps.db, principal, app.namespace, { from: month, to: month }))
          .filter((r) => r.app.slug === app.slug)
          .reduce((sum, r) => sum + r.totalMicroUsd, 0),
      }
    : null;
  const { sdk, access, exports } = headline(row);
  return {
    app: { namespace: row.namespace, slug: row.slug, title: m.title, summary: m.summary, category: m.category },
    owner: { department: m.owner?.department ?? null, team: m.owner?.team ?? null, contact: m.owner?.contact ?? null },
    version: { production: row.summary.production?.version ?? null, test: row.summary.test?.version ?? null, shown: row.shownVersion },
    sdk,
    data: { read: m.semantic.types, written: m.semantic.write, actions: m.semantic.actions },
    exports,
    dependencies: { models: m.models, datasets: m.datasets, streams: m.streams, cameras: m.cameras, cdn: m.cdn },
    access,
    use7d: use,
    spend,
  };
}
