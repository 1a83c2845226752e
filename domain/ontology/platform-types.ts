import type { ObjectTypeDefinition } from '../../schemas/ontology.ts';
import { DomainError } from '../errors.ts';

// The platform data source's object types (issue 31): what svc itself knows of a company — its
// members, its apps, its apps' daily log counts — as object types of the company's ontology, so
// apps, object sets, aggregations and ontology SQL read them as any other. They live in the
// reserved `platform` namespace and are read-only: only the platform sync writes them (through
// the one writer, flagged as the platform's write); a developer cannot define, edit, import into
// or run an action against them. Never a secret: no password hash, key, token or lock state.

export const PLATFORM_NAMESPACE = 'platform';

/** A `platform.*` type: filled by the platform sync only. */
export const isPlatformType = (apiName: string) => apiName.startsWith(`${PLATFORM_NAMESPACE}.`);

export const readOnlyType = (apiName: string, index?: number) =>
  new DomainError(
    'object_type_read_only',
    `${apiName} is a read-only platform type: only the platform data source sync (POST /api/v1/ontologies/{ns}/datasources/platform/sync) writes it.`,
    { details: { objectType: apiName, ...(index === undefined ? {} : { edit: index }) } },
  );

const string = { dataType: { type: 'string' as const } };
const timestamp = { dataType: { type: 'timestamp' as const } };
const boolean = { dataType: { type: 'boolean' as const } };

export const PLATFORM_TYPES = {
  member: {
    apiName: 'platform.Member',
    displayName: 'Member',
    description: 'A person with a license in the company (platform data source; read-only).',
    primaryKey: 'accountId',
    titleProperty: 'username',
    properties: {
      accountId: string,
      username: string,
      displayName: string,
      email: string,
      role: string,
      admin: boolean,
      status: string,
      externalId: string,
      memberSince: timestamp,
    },
  },
  app: {
    apiName: 'platform.App',
    displayName: 'App',
    description: 'An app of the company (platform data source; read-only).',
    primaryKey: 'appId',
    titleProperty: 'slug',
    properties: {
      appId: string,
      slug: string,
      published: boolean,
      productionVersionId: string,
      testVersionId: string,
      createdBy: string,
      createdAt: timestamp,
    },
  },
  appLogDay: {
    apiName: 'platform.AppLogDay',
    displayName: 'App log day',
    description: 'One kind and name of app log record counted over one day of one app (platform data source; read-only).',
    primaryKey: 'id',
    properties: {
      id: string,
      appId: string,
      appSlug: string,
      day: { dataType: { type: 'date' as const } },
      kind: string,
      name: string,
      count: { dataType: { type: 'long' as const } },
    },
  },
} satisfies Record<string, ObjectTypeDefinition>;

export type PlatformEntity = keyof typeof PLATFORM_TYPES;
