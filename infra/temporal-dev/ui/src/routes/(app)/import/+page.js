import { redirect } from '@sveltejs/kit';
import { routeForEventHistoryImport } from '@temporalio/ui/utilities/route-for';

export function load() {
  redirect(302, routeForEventHistoryImport());
}
