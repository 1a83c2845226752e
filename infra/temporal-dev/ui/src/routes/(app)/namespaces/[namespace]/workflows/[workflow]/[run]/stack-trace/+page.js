import { redirect } from '@sveltejs/kit';
import { routeForCallStack } from '@temporalio/ui/utilities/route-for';

export function load({ params }) {
  redirect(302, routeForCallStack(params));
}
