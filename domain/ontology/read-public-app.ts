import type { ObjectPage, ObjectType, OntologyObject } from '../../schemas/ontology.ts';
import { anonymousAccessToApp, pageAddresses } from '../apps/index.ts';
import type { DomainDeps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { mayRead, type OpenOntology, readableType, readOnlyAccess, withinMarkings } from './data-access.ts';
import { findObject } from './get-object.ts';
import { objectTypeWire } from './list-object-types.ts';
import { findOntology, listObjectTypeRecords } from './repository.ts';
import { objectPage } from './search-objects.ts';

// The public app link `/semantic/<company>/applications/<app>` (spec D rule 7): readable without
// login when the app, or its company's applications, is at the internet tier; read only, and only
// the object types the app's production manifest reads (the policy's anonymous rule decides both).

type Deps = Pick<DomainDeps, 'db' | 'addresses'>;
type AppName = { namespace: string; slug: string };

/** The app as the anonymous visitor reads it; any app not at the internet tier (or no longer) does not exist here (404). */
async function openPublicApp(deps: Pick<DomainDeps, 'db'>, name: AppName) {
  const { app, version, access } = await anonymousAccessToApp(deps, { ...name, channel: 'production' });
  if (!access.allowed) {
    throw new DomainError('app_not_found', `No app ${name.namespace}/${name.slug} is open to the internet.`, { details: name });
  }
  const ontology = await findOntology(deps.db, app.namespace);
  const types = ontology && (await listObjectTypeRecords(deps.db, ontology.id));
  const open: OpenOntology | undefined = ontology &&
    types && {
      ontology,
      // The anonymous visitor is cleared for no marking: a marked type is never on the internet.
      access: await withinMarkings(deps, null, ontology, types, readOnlyAccess(access.readTypes)),
      types,
    };
  return { app, version, open };
}

/** The app's ontology with one of its readable types; any other type (or no ontology yet) is object_type_not_found. */
async function openPublicType(deps: Pick<DomainDeps, 'db'>, name: AppName, apiName: string) {
  const { open } = await openPublicApp(deps, name);
  if (!open) throw new DomainError('object_type_not_found', `No object type ${apiName}.`, { details: { objectType: apiName } });
  return { open, type: readableType(open, apiName) };
}

export interface PublicApp {
  namespace: string;
  slug: string;
  title: string;
  version: string;
  /** The app's production address (its pages open without login too). */
  address: string;
  /** The object types the app reads that are defined, readable here. */
  objectTypes: ObjectType[];
}

/** `GET /semantic/{namespace}/applications/{slug}`: the app and the definitions of the types it reads. */
export async function describePublicApp(deps: Deps, name: AppName): Promise<PublicApp> {
  const { app, version, open } = await openPublicApp(deps, name);
  const types = open ? open.types.filter((t) => mayRead(open.access, t.apiName)) : [];
  return {
    namespace: app.namespace,
    slug: app.slug,
    title: version.manifest.title,
    version: version.version,
    address: pageAddresses(deps.addresses(), app.namespace, app.slug, []).production.address,
    objectTypes: types.map(objectTypeWire),
  };
}

/** `GET …/objects/{objectType}`: a page of one of the app's types (`pageSize` up to 1000, `pageToken`). */
export async function listPublicAppObjects(
  deps: Deps,
  input: AppName & { objectType: string; pageSize?: number | undefined; pageToken?: string | undefined },
): Promise<ObjectPage> {
  const { open, type } = await openPublicType(deps, input, input.objectType);
  return objectPage(deps.db, open.ontology, type, {
    ...(input.pageSize === undefined ? {} : { pageSize: input.pageSize }),
    ...(input.pageToken === undefined ? {} : { pageToken: input.pageToken }),
  });
}

/** `GET …/objects/{objectType}/{primaryKey}`: one object of one of the app's types. */
export async function getPublicAppObject(deps: Deps, input: AppName & { objectType: string; primaryKey: string }): Promise<OntologyObject> {
  const { open } = await openPublicType(deps, input, input.objectType);
  return findObject(deps.db, open, input.objectType, input.primaryKey);
}
