import type { ChannelChange } from '../../schemas/apps.ts';
import { problem } from '../../schemas/problems.ts';
import type { Channel, DbOrTrx, ReleaseAction } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import { enqueue } from '../outbox/index.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import { getApp, releaseFacts } from './repository.ts';
import { compareVersions } from './semver.ts';
import { wasTested } from './version-status.ts';

export interface PromoteInput {
  namespace: string;
  slug: string;
  channel: Channel;
  /** A semantic version, or a build number (`#3` or `3`). */
  version?: string | undefined;
  notes?: string | undefined;
}

const BUILD = /^#?([1-9][0-9]*)$/;

/**
 * Moves a channel pointer and writes a release record. An omitted version
 * means the newest upload for test, and the version in test for production.
 * Production takes only versions that have been in test; moving it to an
 * earlier version is a rollback. Moving a pointer where it already is changes
 * nothing and writes no record.
 */
export async function promoteVersion(db: DbOrTrx, principal: Principal, input: PromoteInput): Promise<ChannelChange> {
  authorize(principal, 'app.deploy', { namespace: input.namespace });
  const app = await getApp(db, input.namespace, input.slug, { lock: true });

  const target = await resolveTarget(db, app, input);
  const facts = await releaseFacts(db, app.id);
  const currentId = input.channel === 'test' ? app.test_version_id : app.production_version_id;
  const current = currentId
    ? await db.selectFrom('app_versions').select(['id', 'version']).where('id', '=', currentId).executeTakeFirstOrThrow()
    : undefined;
  if (current?.id === target.id) {
    return { channel: input.channel, action: null, from: current.version, to: target.version, changed: false };
  }
  if (input.channel === 'production' && !wasTested(target.id, facts)) {
    throw new DomainError('conflict', `Version ${target.version} has not been in test; promote it to test first.`, {
      details: { version: target.version },
    });
  }
  const action: ReleaseAction =
    input.channel === 'test' ? 'enter_test' : current && compareVersions(target.version, current.version) < 0 ? 'rollback' : 'publish';

  await db
    .updateTable('apps')
    .set(input.channel === 'test' ? { test_version_id: target.id } : { production_version_id: target.id })
    .where('id', '=', app.id)
    .execute();
  await db
    .insertInto('release_records')
    .values({
      id: newId('rel'),
      app_id: app.id,
      channel: input.channel,
      action,
      from_version_id: current?.id ?? null,
      to_version_id: target.id,
      actor_account_id: principal.account.id,
      notes: input.notes ?? null,
      seq: facts.length + 1,
    })
    .execute();
  // The app's workflow triggers follow production (publish and rollback alike).
  if (input.channel === 'production') await enqueue(db, { topic: 'app-workflows.changed', key: app.id, payload: { appId: app.id } });
  return { channel: input.channel, action, from: current?.version ?? null, to: target.version, changed: true };
}

async function resolveTarget(db: DbOrTrx, app: { id: string; test_version_id: string | null }, input: PromoteInput) {
  const versions = db.selectFrom('app_versions').select(['id', 'version']).where('app_id', '=', app.id);
  const notFound = (what: string) =>
    new DomainError('invalid_payload', `This app has no ${what}.`, {
      details: { problems: [problem('version', 'not_found', `this app has no ${what}`)] },
    });
  if (input.version !== undefined) {
    const build = BUILD.exec(input.version);
    const found = build
      ? await versions.where('build', '=', Number(build[1])).executeTakeFirst()
      : await versions.where('version', '=', input.version).executeTakeFirst();
    if (!found) throw notFound(build ? `build #${build[1]}` : `version ${input.version}`);
    return found;
  }
  if (input.channel === 'production') {
    if (!app.test_version_id) throw new DomainError('conflict', 'The test channel is empty: name the version to publish.');
    return versions.where('id', '=', app.test_version_id).executeTakeFirstOrThrow();
  }
  const newest = await versions.orderBy('build', 'desc').limit(1).executeTakeFirst();
  if (!newest) throw notFound('uploaded version');
  return newest;
}
