import type { Db } from '../domain/db/database.ts';
import type { CloudProvider } from '../domain/provisioning/cloud-provider.ts';
import { createAppLogActivities } from './app-log.ts';
import { createDeviceLoginActivities } from './device-login.ts';
import { createOntologyActivities } from './ontology.ts';
import { createProvisioningActivities } from './provisioning.ts';
import { createUsageActivities } from './usage.ts';

export interface ActivityDeps {
  db: Db;
  /** Where company initialization creates or finds server instances (aws or local). */
  cloud: CloudProvider;
}

/** All activities, built from their dependencies (the worker passes the real ones). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createDeviceLoginActivities(deps),
    ...createProvisioningActivities(deps),
    ...createAppLogActivities(deps),
    ...createUsageActivities(deps),
    ...createOntologyActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
