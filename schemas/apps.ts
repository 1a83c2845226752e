import { z } from 'zod';
import { NAMESPACE_PATTERN, SLUG_PATTERN } from './manifest/index.ts';

// App contracts shared by the service and the CLI: addresses, versions, channels, release records.

export const AppParams = z.object({
  namespace: z.string().regex(NAMESPACE_PATTERN, 'must be public or cell-<company>'),
  slug: z.string().regex(SLUG_PATTERN, 'must be a slug: a lowercase letter, then 1 to 47 lowercase letters, digits or hyphens'),
});
export const Channel = z.enum(['test', 'production']);
export const ReleaseAction = z.enum(['enter_test', 'publish', 'rollback']);
export const Notes = z.string().max(2000);
export const UpdateStatus = z.enum(['untested', 'testing', 'tested', 'live', 'superseded', 'rolled_back']);
export const Warning = z.object({ path: z.string().optional(), code: z.string(), message: z.string() });

export const VersionView = z
  .object({
    version: z.string(),
    build: z.number().int(),
    buildLabel: z.string().meta({ description: 'The build number as written in the CLI, e.g. `#3`.' }),
    status: UpdateStatus,
    tested: z.boolean(),
    digest: z.string(),
    size: z.number().int(),
    fileCount: z.number().int(),
    notes: z.string().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'AppVersion' });

const Addresses = z.object({ address: z.string(), about: z.string(), aboutMarkdown: z.string(), skills: z.array(z.string()) });

export const ReleaseRecordView = z
  .object({
    channel: Channel,
    action: ReleaseAction,
    from: z.string().nullable(),
    to: z.string(),
    by: z.string(),
    at: z.iso.datetime(),
    notes: z.string().nullable(),
  })
  .meta({ id: 'ReleaseRecord' });

export const AppView = z
  .object({
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    channels: z.object({ test: z.string().nullable(), production: z.string().nullable() }),
    versions: z.array(VersionView).meta({ description: 'Newest build first.' }),
    releases: z.array(ReleaseRecordView).meta({ description: 'Oldest first.' }),
    pages: z.object({ test: Addresses, production: Addresses }),
  })
  .meta({ id: 'App' });
export type AppView = z.input<typeof AppView>;

export const AppSummary = z
  .object({
    namespace: z.string(),
    slug: z.string(),
    title: z.string(),
    category: z.string(),
    department: z.string().nullable(),
    test: z.object({ version: z.string(), build: z.number().int() }).nullable(),
    production: z.object({ version: z.string(), build: z.number().int() }).nullable(),
    latest: z.object({ version: z.string(), build: z.number().int(), status: UpdateStatus.optional() }),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AppSummary' });
export type AppSummary = z.input<typeof AppSummary>;

/** An app of the developer's list: its summary and where its channels are opened. */
export const ListedApp = AppSummary.extend({
  addresses: z.object({ test: z.string(), production: z.string() }).meta({ description: 'The test and production addresses.' }),
}).meta({ id: 'ListedApp' });
export type ListedApp = z.input<typeof ListedApp>;

export const UploadedVersion = z.object({
  app: z.object({ namespace: z.string(), slug: z.string() }),
  version: z.string(),
  build: z.number().int(),
  buildLabel: z.string(),
  digest: z.string(),
  created: z.boolean(),
  warnings: z.array(Warning),
  skills: z.array(z.string()),
});
export type UploadedVersion = z.input<typeof UploadedVersion>;

export const ChannelChange = z.object({
  channel: Channel,
  action: ReleaseAction.nullable(),
  from: z.string().nullable(),
  to: z.string(),
  changed: z.boolean(),
});
export type ChannelChange = z.input<typeof ChannelChange>;
