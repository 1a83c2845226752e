import type { z } from 'zod';
import type { BillingSummary } from '../../schemas/billing.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Principal } from '../principal.ts';
import { listBillingRecords } from './list-billing-records.ts';

/** One month of a namespace: each app's record and the total. */
export async function summarizeBilling(
  db: DbOrTrx,
  principal: Principal,
  namespace: string,
  month: string,
): Promise<z.input<typeof BillingSummary>> {
  const apps = await listBillingRecords(db, principal, namespace, { from: month, to: month });
  return { namespace, month, currency: 'USD', apps, totalMicroUsd: apps.reduce((sum, r) => sum + r.totalMicroUsd, 0) };
}
