import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../../domain/errors.ts';
import { authorize, can, type StreamSubject } from '../../../domain/policy/authorize.ts';
import { clearanceAt, satisfiesMarkings } from '../../../domain/policy/markings.ts';
import { liveGroupIds, resourceRoleOf } from '../../../domain/policy/rules.ts';
import type { Principal } from '../../../domain/principal.ts';

// Issue 27, leftovers 3 and 4: decisions that were inline credential-kind checks in use cases
// (the mail test's "a person's key or session", the proposal decisions' "a human web login") are
// the policy's own actions, decided here for every caller kind.

const account = (platformStaff = false) => ({ id: 'acc_me', username: 'me', email: 'me@example.com', platformStaff });
const acme = { id: 'org_acme', cellId: 'cell-acme', name: 'Acme' };
const key = (role: 'developer' | 'member', agent?: boolean): Principal => ({
  kind: 'key',
  account: account(),
  company: acme,
  role,
  key: { id: 'key_1', displayPrefix: 'svc-dk-x' },
  ...(agent
    ? { agent: { id: 'auditor', restrictions: { operations: ['api:use-ontologies-read'], objectTypes: [], actionTypes: [] } } }
    : {}),
});
const session = (role: 'developer' | 'member' | null): Principal => ({
  kind: 'session',
  account: account(),
  sessionHash: Buffer.alloc(32),
  licenses: role ? [{ companyId: acme.id, cellId: acme.cellId, role }] : [],
});
const ticket = (appToken = false): Principal => ({
  kind: 'ticket',
  account: account(),
  ticket: {
    id: 'tkt_1',
    appId: 'app_1',
    namespace: 'cell-acme',
    slug: 'crm',
    channel: 'production',
    versionId: 'ver_1',
    expiresAt: new Date(0),
    companyId: acme.id,
    shareId: null,
    role: 'developer',
    ...(appToken ? { appToken: { clientId: 'cli_1' } } : {}),
  },
});

describe('notify.test: the mail test goes to the caller’s own address, for a person’s key or web session', () => {
  const self = {};
  it('a person’s key or session → may; an agent key, an app ticket or an app token (send-test-notification.ts guard was inline) → may not', () => {
    expect([key('developer'), key('member'), session('developer'), session(null)].map((p) => can(p, 'notify.test', self))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([key('developer', true), ticket(), ticket(true)].map((p) => can(p, 'notify.test', self))).toEqual([false, false, false]);
  });
});

describe('ontology.decide-proposal: approve, reject and merge only through a developer’s human web login', () => {
  const acmeNs = { namespace: 'cell-acme' };
  it('a developer key, agent key or ticket (branch-access.ts assertHumanWebLogin was inline; deniedInside of the route table) → may not', () => {
    expect([key('developer'), key('developer', true), ticket()].map((p) => can(p, 'ontology.decide-proposal', acmeNs))).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('a developer’s web session → may; a member’s session, or a developer of another company → may not', () => {
    expect(can(session('developer'), 'ontology.decide-proposal', acmeNs)).toBe(true);
    expect(can(session('member'), 'ontology.decide-proposal', acmeNs)).toBe(false);
    expect(can(session('developer'), 'ontology.decide-proposal', { namespace: 'cell-globex' })).toBe(false);
  });
});

describe('people.manage: a company’s groups and people are its admins’ and developers’, every company’s for operators', () => {
  const acmeNs = { namespace: 'cell-acme' };
  it('a developer key or session of the company → may; a member, an agent key, a ticket → may not', () => {
    expect([key('developer'), session('developer')].map((p) => can(p, 'people.manage', acmeNs))).toEqual([true, true]);
    expect(
      [key('member'), session('member'), key('developer', true), ticket(), ticket(true)].map((p) => can(p, 'people.manage', acmeNs)),
    ).toEqual([false, false, false, false, false]);
  });

  it('a developer of another company → may not; platform staff → may, for any company', () => {
    expect(can(key('developer'), 'people.manage', { namespace: 'cell-globex' })).toBe(false);
    const staff: Principal = { ...key('member'), account: account(true) };
    expect(can(staff, 'people.manage', { namespace: 'cell-globex' })).toBe(true);
    expect(can({ ...key('developer', true), account: account(true) }, 'people.manage', acmeNs)).toBe(false);
  });
});

describe('connectivity.manage: data connections (their secrets), syncs and builds are the company’s developers’', () => {
  const acmeNs = { namespace: 'cell-acme' };
  it('a developer key or session of the company → may; a member, an agent key, a ticket (even a developer’s), an app token → may not', () => {
    expect([key('developer'), session('developer')].map((p) => can(p, 'connectivity.manage', acmeNs))).toEqual([true, true]);
    expect(
      [key('member'), session('member'), key('developer', true), ticket(), ticket(true)].map((p) => can(p, 'connectivity.manage', acmeNs)),
    ).toEqual([false, false, false, false, false]);
  });

  it('a developer of another company → may not; a staff key acts for its own company only', () => {
    expect(can(key('developer'), 'connectivity.manage', { namespace: 'cell-globex' })).toBe(false);
    const staffKey: Principal = { ...key('member'), account: account(true) };
    expect(can(staffKey, 'connectivity.manage', acmeNs)).toBe(true);
    expect(can(staffKey, 'connectivity.manage', { namespace: 'cell-globex' })).toBe(false);
  });
});

describe('liveGroupIds: the one membership rule, judged at the check', () => {
  const m = (groupId: string, expiresAt: string | null) => ({
    groupId,
    companyId: 'org_acme',
    expiresAt: expiresAt ? new Date(expiresAt) : null,
  });
  it('counts memberships without an end and those ending after now; one ending now or before grants nothing', () => {
    const memberships = [
      m('grp_forever', null),
      m('grp_later', '2026-11-27T10:00:00.001Z'),
      m('grp_now', '2026-11-27T10:00:00Z'),
      m('grp_past', '2026-01-01T00:00:00Z'),
    ];
    expect(liveGroupIds(memberships, new Date('2026-11-27T10:00:00Z'))).toEqual(['grp_forever', 'grp_later']);
    expect(liveGroupIds(memberships, new Date('2026-11-27T10:00:00.001Z'))).toEqual(['grp_forever']);
  });
});

describe('markings: the clearance rule and the marking actions', () => {
  const conj = (markingId: string, categoryId = 'mkc_all') => ({ markingId, categoryId, categoryType: 'conjunctive' as const });
  const disj = (markingId: string, categoryId = 'mkc_any') => ({ markingId, categoryId, categoryType: 'disjunctive' as const });
  const cleared = (...ids: string[]) => new Map(ids.map((id) => [id, 'use' as const]));

  it('asks all of a conjunctive category’s markings, any one of each disjunctive category’s, and nothing of an unmarked resource', () => {
    expect(satisfiesMarkings(cleared(), [])).toBe(true);
    expect(satisfiesMarkings(cleared('a'), [conj('a'), conj('b')])).toBe(false);
    expect(satisfiesMarkings(cleared('a', 'b'), [conj('a'), conj('b')])).toBe(true);
    expect(satisfiesMarkings(cleared('x'), [disj('x'), disj('y')])).toBe(true);
    // Two disjunctive categories: one marking of each.
    expect(satisfiesMarkings(cleared('x'), [disj('x'), disj('z', 'mkc_other')])).toBe(false);
    expect(satisfiesMarkings(cleared('x', 'a'), [disj('x'), disj('y'), conj('a')])).toBe(true);
    expect(satisfiesMarkings(cleared('x'), [disj('x'), conj('a')])).toBe(false);
  });

  it('clears through a group only while the membership is live, and keeps the highest role', () => {
    const now = new Date('2026-11-27T10:00:00Z');
    const clearance = clearanceAt(
      [
        { markingId: 'a', role: 'use', via: 'account' },
        { markingId: 'a', role: 'administer', via: 'group', expiresAt: null },
        { markingId: 'b', role: 'use', via: 'group', expiresAt: new Date('2026-11-27T10:00:00Z') },
        { markingId: 'c', role: 'declassify', via: 'group', expiresAt: new Date('2026-11-27T10:00:01Z') },
      ],
      now,
    );
    expect([...clearance.entries()]).toEqual([
      ['a', 'administer'],
      ['c', 'declassify'],
    ]);
  });

  it('a marked resource has no role for a caller who does not satisfy it, Owners included', () => {
    const marked = { required: [conj('a')], clearance: cleared() };
    expect(resourceRoleOf(key('developer'), { companyId: acme.id }, null)).toBe('owner');
    expect(resourceRoleOf(key('developer'), { companyId: acme.id }, null, marked)).toBe(null);
    expect(resourceRoleOf(key('developer'), { companyId: acme.id }, null, { ...marked, clearance: cleared('a') })).toBe('owner');
  });

  it('resource.mark: Owners with USE to add and DECLASSIFY to remove; marking.administer: ADMINISTERs and operators', () => {
    const subject = (
      change: 'add' | 'remove',
      role: 'use' | 'declassify' | 'administer' | null,
      resourceRole: 'owner' | 'viewer' = 'owner',
    ) => ({
      rid: 'ri.x',
      role: resourceRole,
      change,
      markings: [{ markingId: 'a', role }],
    });
    expect(can(key('developer'), 'resource.mark', subject('add', 'use'))).toBe(true);
    expect(can(key('developer'), 'resource.mark', subject('add', null))).toBe(false);
    expect(can(key('developer'), 'resource.mark', subject('add', 'use', 'viewer'))).toBe(false);
    expect(can(key('developer'), 'resource.mark', subject('remove', 'use'))).toBe(false);
    expect(can(key('developer'), 'resource.mark', subject('remove', 'declassify'))).toBe(true);
    expect(can(key('developer'), 'resource.mark', subject('remove', 'administer'))).toBe(true);
    expect(can(key('member'), 'marking.administer', { markingId: 'a', role: 'administer' })).toBe(true);
    expect(can(key('developer'), 'marking.administer', { markingId: 'a', role: 'declassify' })).toBe(false);
    expect(can({ ...key('developer'), account: account(true) }, 'marking.administer', { markingId: 'a', role: null })).toBe(true);
    expect(can(ticket(), 'markings.read', { namespace: 'cell-acme' })).toBe(false);
    expect(can(key('member'), 'markings.read', { namespace: 'cell-acme' })).toBe(true);
    expect(can(key('member'), 'markings.read', { namespace: 'cell-globex' })).toBe(false);
  });
});

describe('attachment.upload and attachment.read: uploaded by whoever may apply actions; read by rid by the uploader and the developers', () => {
  it('upload: keys, sessions and writing tickets may; a read-only agent key and a viewer’s ticket may not', () => {
    const company = { namespace: 'cell-acme' };
    expect([key('developer'), key('member'), session('member'), ticket()].map((p) => can(p, 'attachment.upload', company))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const viewer = ticket();
    if (viewer.kind === 'ticket') viewer.ticket.role = 'viewer';
    expect([key('developer', true), viewer].map((p) => can(p, 'attachment.upload', company))).toEqual([false, false]);
  });

  it('read by rid: the uploader and the company’s developers acting for it; a member who did not upload it, or another company, finds nothing', () => {
    const rid = 'ri.attachments.main.attachment.x';
    const theirs = { rid, namespace: 'cell-acme', uploadedByCaller: false };
    const own = { ...theirs, uploadedByCaller: true };
    expect([key('member'), session('member'), ticket()].map((p) => can(p, 'attachment.read', own))).toEqual([true, true, true]);
    expect([key('developer'), session('developer')].map((p) => can(p, 'attachment.read', theirs))).toEqual([true, true]);
    expect([key('member'), session('member'), session(null)].map((p) => can(p, 'attachment.read', theirs))).toEqual([false, false, false]);
    // Its own upload, reached through a credential of another company, is not there.
    expect([key('developer'), key('member')].map((p) => can(p, 'attachment.read', { ...own, namespace: 'cell-globex' }))).toEqual([
      false,
      false,
    ]);
  });
});

describe('stream.manage and stream.push: a company’s data streams are its developers’; an app ticket pushes to the streams its manifest lists', () => {
  const stream = (namespace: string, appStreams: string[] | null = null): StreamSubject => ({ namespace, stream: 'orders', appStreams });
  const code = (p: Principal, action: 'stream.manage' | 'stream.push', subject: StreamSubject) => {
    try {
      authorize(p, action, subject);
      return null;
    } catch (err) {
      return (err as DomainError).code;
    }
  };
  it('a developer key or session of the company → may; a member → forbidden; an agent key or a ticket never manages', () => {
    expect([key('developer'), session('developer')].map((p) => code(p, 'stream.manage', stream('cell-acme')))).toEqual([null, null]);
    expect([key('member'), session('member')].map((p) => code(p, 'stream.manage', stream('cell-acme')))).toEqual([
      'forbidden',
      'forbidden',
    ]);
    expect([key('developer', true), ticket()].map((p) => code(p, 'stream.manage', stream('cell-acme')))).toEqual([
      'forbidden',
      'forbidden',
    ]);
  });

  it('another company’s streams do not exist for the caller (404), whatever its role there', () => {
    expect([key('developer'), session('developer'), key('member')].map((p) => code(p, 'stream.manage', stream('cell-globex')))).toEqual([
      'stream_not_found',
      'stream_not_found',
      'stream_not_found',
    ]);
    expect(code(key('developer'), 'stream.manage', { ...stream('cell-globex'), stream: null })).toBe('organization_not_found');
    expect(code(ticket(), 'stream.push', stream('cell-globex', ['orders']))).toBe('stream_not_found');
  });

  it('a ticket pushes only to a listed stream, never as a viewer; an app token never', () => {
    expect(code(ticket(), 'stream.push', stream('cell-acme', ['orders']))).toBeNull();
    expect(code(ticket(), 'stream.push', stream('cell-acme', ['other']))).toBe('stream_not_found');
    expect(code(ticket(), 'stream.push', stream('cell-acme', []))).toBe('stream_not_found');
    const viewer = ticket() as Extract<Principal, { kind: 'ticket' }>;
    expect(code({ ...viewer, ticket: { ...viewer.ticket, role: 'viewer' } }, 'stream.push', stream('cell-acme', ['orders']))).toBe(
      'forbidden',
    );
    expect(code(ticket(true), 'stream.push', stream('cell-acme', ['orders']))).toBe('forbidden');
    expect(code(key('developer'), 'stream.push', stream('cell-acme'))).toBeNull();
  });
});

describe('ontology.upload-media and media.read-through-object: an app’s page uploads as its visitor applies actions', () => {
  const withRole = (role: 'developer' | 'member' | 'editor' | 'viewer'): Principal => {
    const p = ticket();
    if (p.kind === 'ticket') p.ticket.role = role;
    return p;
  };
  const property = { namespace: 'cell-acme', objectType: 'vision.Photo', direct: false };

  it('writing tickets open sessions that name no object; a viewer’s ticket and a direct edit by any ticket are refused', () => {
    const writers = [withRole('developer'), withRole('member'), withRole('editor')];
    expect(writers.map((p) => can(p, 'ontology.upload-media', property))).toEqual([true, true, true]);
    expect(can(withRole('viewer'), 'ontology.upload-media', property)).toBe(false);
    // A developer's ticket is a developer, yet a ticket never edits objects directly.
    expect(writers.map((p) => can(p, 'ontology.upload-media', { ...property, direct: true }))).toEqual([false, false, false]);
    expect([key('developer'), session('developer')].map((p) => can(p, 'ontology.upload-media', { ...property, direct: true }))).toEqual([
      true,
      true,
    ]);
    // Member keys and sessions stay refused, as before.
    expect([key('member'), session('member')].map((p) => can(p, 'ontology.upload-media', property))).toEqual([false, false]);
  });

  it('a ticket reaches only the sessions its account opened; developers reach every session', () => {
    const theirs = { ...property, session: { uploadId: 'u1', openedByCaller: false } };
    expect(can(withRole('member'), 'ontology.upload-media', theirs)).toBe(false);
    expect(can(withRole('member'), 'ontology.upload-media', { ...theirs, session: { uploadId: 'u1', openedByCaller: true } })).toBe(true);
    expect(can(key('developer'), 'ontology.upload-media', theirs)).toBe(true);
  });

  it('through an object: the property’s own set needs no role; another set needs one, and never for an agent key', () => {
    const rid = 'ri.mio.svc.media-set.x';
    expect(can(withRole('viewer'), 'media.read-through-object', { rid, role: null, propertySet: true })).toBe(true);
    expect(can(withRole('member'), 'media.read-through-object', { rid, role: null, propertySet: false })).toBe(false);
    expect(can(session('member'), 'media.read-through-object', { rid, role: 'viewer', propertySet: false })).toBe(true);
    expect(can(key('developer', true), 'media.read-through-object', { rid, role: 'viewer', propertySet: false })).toBe(false);
  });
});
