// Settings, cluster and system info for every page, as the UI's own (app) layout loads them (no auth).
import { fetchCluster, fetchSystemInfo } from '@temporalio/ui/services/cluster-service';
import { fetchNamespaces } from '@temporalio/ui/services/namespaces-service';
import { fetchSettings } from '@temporalio/ui/services/settings-service';
import '../../app.css';

export async function load({ fetch }) {
  const settings = await fetchSettings(fetch);
  fetchNamespaces(settings, fetch);
  const cluster = await fetchCluster(settings, fetch);
  const systemInfo = await fetchSystemInfo(settings, fetch);
  return { settings, cluster, systemInfo };
}
