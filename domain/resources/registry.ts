import type { DbOrTrx } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { ResourceKind, ResourceRecord } from './kind.ts';
import { agentKind } from './kinds/agent.ts';
import { appKind } from './kinds/app.ts';
import { applicationsKind } from './kinds/applications.ts';
import { mediaSetKind } from './kinds/media-set.ts';
import { objectTypeKind, ontologyKind } from './kinds/ontology.ts';
import { workshopModuleKind } from './kinds/workshop-module.ts';

/**
 * Every resource kind the access model knows. Adding a kind is one entry here (a `ResourceKind`
 * in `kinds/`); the tier-table tests run over every entry.
 */
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  applicationsKind,
  appKind,
  agentKind,
  ontologyKind,
  objectTypeKind,
  mediaSetKind,
  workshopModuleKind,
];

export function kindOfRid(rid: string): { kind: ResourceKind; id: string } | undefined {
  const kind = RESOURCE_KINDS.find((k) => rid.startsWith(k.prefix));
  const id = kind && rid.slice(kind.prefix.length);
  return kind && id ? { kind, id } : undefined;
}

export function kindNamed(name: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((k) => k.name === name);
}

export async function findResource(db: DbOrTrx, rid: string): Promise<ResourceRecord> {
  const parsed = kindOfRid(rid);
  const resource = parsed && (await parsed.kind.find(db, parsed.id));
  if (!resource) throw new DomainError('not_found', `No resource ${rid}.`, { details: { rid } });
  return resource;
}
