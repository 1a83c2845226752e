import { fetchNamespace } from '@temporalio/ui/services/namespaces-service';
import { getClusters } from '@temporalio/ui/utilities/get-clusters';

export async function load({ params, parent }) {
  await parent();
  const namespace = await fetchNamespace(params.namespace);
  return { namespace, clusters: getClusters(namespace) };
}
