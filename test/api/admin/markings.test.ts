import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createUser, passwordKey, resetRateLimits, seedCompanies } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Marking categories, markings and their role assignments over HTTP (spec G, Admin), and the
// markings on generic resources: who may do what, the spec's codes, the security event log.

let svc: TestService;
let op: string;
let dana: string;
let mo: string;
let gus: string;
let dev2: string;
let accounts: Record<'dana' | 'mo' | 'multi' | 'gus', string>;
let dev2Id: string;
const ONTOLOGY_RID = 'ri.ontology.svc.ontology.cell-acme';
let orderRid: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ op, accounts } = await seedCompanies(svc));
  dana = await passwordKey(svc, 'dana');
  mo = await passwordKey(svc, 'mo');
  gus = await passwordKey(svc, 'gus');
  dev2Id = (await createUser(svc, op, 'dev2', [{ cellId: 'cell-acme', role: 'developer' }])).id;
  dev2 = await passwordKey(svc, 'dev2');
  expect((await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(dana) })).status).toBe(200);
  const type = await svc.call('GET', '/api/v1/ontologies/cell-acme/objectTypes/sales.Order', { headers: bearer(dana) });
  orderRid = type.body.data.rid;
});
afterAll(() => svc.close());
beforeEach(() => resetRateLimits(svc));

const call = (method: string, path: string, key: string, body?: unknown) =>
  svc.call(method, path, { ...(body === undefined ? {} : { body }), headers: bearer(key) });
const user = (id: string, role: string) => ({ principalType: 'USER', principalId: id, role });
let n = 0;
async function category(categoryType = 'CONJUNCTIVE', key = dana): Promise<string> {
  const res = await call('POST', '/api/v1/admin/markingCategories', key, { name: `Category ${++n}`, categoryType });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}
async function marking(categoryId: string, assignments = [user(accounts.dana, 'ADMINISTER')], key = dana): Promise<string> {
  const res = await call('POST', '/api/v1/admin/markings', key, {
    categoryId,
    name: `Marking ${++n}`,
    initialRoleAssignments: assignments,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}
const roles = async (id: string) => (await call('GET', `/api/v1/admin/markings/${id}/roleAssignments`, dana)).body.data.data;
const events = async (kind: string) =>
  (await call('GET', `/api/v1/admin/security-events?kind=${kind}`, op)).body.data.events as {
    actorId: string;
    details: Record<string, unknown>;
  }[];

describe('marking categories and markings', () => {
  it('creates, gets and lists categories and markings of the caller’s company; names unique per category whatever their case', async () => {
    const created = await call('POST', '/api/v1/admin/markingCategories', dana, {
      name: 'Sensitivity',
      description: 'How secret',
      categoryType: 'DISJUNCTIVE',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      name: 'Sensitivity',
      organization: 'cell-acme',
      categoryType: 'DISJUNCTIVE',
      markingType: 'MANDATORY',
      markings: [],
      createdBy: accounts.dana,
    });
    const categoryId = created.body.data.id;
    expect(categoryId).toMatch(/^mkc_/);
    const dupCategory = await call('POST', '/api/v1/admin/markingCategories', dana, { name: 'SENSITIVITY', categoryType: 'CONJUNCTIVE' });
    expect([dupCategory.status, dupCategory.body.error.code]).toEqual([409, 'conflict']);

    const made = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'Secret',
      initialRoleAssignments: [user(accounts.dana, 'ADMINISTER'), user(accounts.mo, 'USE')],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.data).toMatchObject({ categoryId, name: 'Secret', organization: 'cell-acme', createdBy: accounts.dana });
    const id = made.body.data.id;
    expect((await call('GET', `/api/v1/admin/markings/${id}`, mo)).body.data).toEqual(made.body.data);
    expect((await call('GET', `/api/v1/admin/markingCategories/${categoryId}`, mo)).body.data.markings).toEqual([id]);
    expect(await roles(id)).toHaveLength(2);
    expect(await roles(id)).toEqual(expect.arrayContaining([user(accounts.dana, 'ADMINISTER'), user(accounts.mo, 'USE')]));

    const dup = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'secret',
      initialRoleAssignments: [user(accounts.dana, 'ADMINISTER')],
    });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'marking_name_exists']);
    // The same name in another category is another marking.
    await marking(await category(), [user(accounts.dana, 'ADMINISTER')]);

    const listed = await call('GET', `/api/v1/admin/markings?categoryId=${categoryId}`, mo);
    expect(listed.body.data).toEqual({ data: [made.body.data], nextPageToken: null });
    const categories = await call('GET', '/api/v1/admin/markingCategories?pageSize=1', dana);
    expect(categories.body.data.data).toHaveLength(1);
    expect(categories.body.data.nextPageToken).not.toBeNull();
    const next = await call('GET', `/api/v1/admin/markingCategories?pageSize=1000&pageToken=${categories.body.data.nextPageToken}`, dana);
    expect(next.body.data.data.map((c: { id: string }) => c.id)).not.toContain(categories.body.data.data[0].id);

    // Recorded: who, what, when.
    expect((await events('marking_category_created')).find((e) => e.details.categoryId === categoryId)).toMatchObject({
      actorId: accounts.dana,
      details: { organization: 'cell-acme', name: 'Sensitivity' },
    });
    expect((await events('marking_created')).find((e) => e.details.markingId === id)).toMatchObject({ actorId: accounts.dana });
  });

  it('needs an ADMINISTER among the initial assignments, and existing principals of the company', async () => {
    const categoryId = await category();
    const none = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [user(accounts.mo, 'USE')],
    });
    expect([none.status, none.body.error.code]).toEqual([400, 'invalid_payload']);
    const ghost = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [user('acc_0000000000000000', 'ADMINISTER')],
    });
    expect([ghost.status, ghost.body.error.code]).toEqual([404, 'principal_not_found']);
    // A group of another company is not found (never confirmed across companies).
    const globexGroup = await call('POST', '/api/v1/admin/groups', gus, { name: 'Globex people' });
    const foreign = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [
        user(accounts.dana, 'ADMINISTER'),
        { principalType: 'GROUP', principalId: globexGroup.body.data.id, role: 'USE' },
      ],
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'principal_not_found']);
    const mismatched = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [{ principalType: 'GROUP', principalId: accounts.dana, role: 'ADMINISTER' }],
    });
    expect([mismatched.status, mismatched.body.error.code]).toEqual([400, 'invalid_payload']);
    const unknownField = await call('POST', '/api/v1/admin/markings', dana, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [user(accounts.dana, 'ADMINISTER')],
      constructor: 'x',
    });
    expect([unknownField.status, unknownField.body.error.code]).toEqual([400, 'invalid_payload']);
  });

  it('hides other companies’ categories and markings; members read but do not create', async () => {
    const categoryId = await category();
    const id = await marking(categoryId);
    expect((await call('GET', `/api/v1/admin/markingCategories/${categoryId}`, gus)).body.error.code).toBe('marking_category_not_found');
    expect((await call('GET', `/api/v1/admin/markings/${id}`, gus)).body.error.code).toBe('marking_not_found');
    expect((await call('GET', `/api/v1/admin/markings/${id}/roleAssignments`, gus)).body.error.code).toBe('marking_not_found');
    expect((await call('GET', '/api/v1/admin/markings/mkg_0000000000000000', dana)).status).toBe(404);
    const inOther = await call('POST', '/api/v1/admin/markings', gus, {
      categoryId,
      name: 'x',
      initialRoleAssignments: [user(accounts.gus, 'ADMINISTER')],
    });
    expect([inOther.status, inOther.body.error.code]).toEqual([404, 'marking_category_not_found']);
    expect((await call('GET', '/api/v1/admin/markingCategories?organization=cell-acme', gus)).status).toBe(403);
    expect((await call('GET', '/api/v1/admin/markingCategories', mo)).status).toBe(200);
    expect((await call('POST', '/api/v1/admin/markingCategories', mo, { name: 'Mine', categoryType: 'CONJUNCTIVE' })).status).toBe(403);
    // Operators reach every company's markings.
    expect((await call('GET', `/api/v1/admin/markings/${id}`, op)).status).toBe(200);
  });
});

describe('role assignments', () => {
  it('adds and removes roles (ADMINISTERs only), keeps the last ADMINISTER, and records each change', async () => {
    const id = await marking(await category());
    const path = `/api/v1/admin/markings/${id}/roleAssignments`;
    const refused = await call('POST', `${path}/add`, dev2, { roleAssignments: [user(dev2Id, 'USE')] });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);

    const added = await call('POST', `${path}/add`, dana, { roleAssignments: [user(accounts.mo, 'USE'), user(dev2Id, 'ADMINISTER')] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.data).toHaveLength(3);
    // Adding one again changes nothing.
    expect((await call('POST', `${path}/add`, dana, { roleAssignments: [user(accounts.mo, 'USE')] })).body.data.data).toHaveLength(3);

    const last = await call('POST', `${path}/remove`, dana, {
      roleAssignments: [user(accounts.dana, 'ADMINISTER'), user(dev2Id, 'ADMINISTER')],
    });
    expect([last.status, last.body.error.code]).toEqual([409, 'last_admin_protected']);
    expect(await roles(id)).toHaveLength(3);

    // dev2, now an ADMINISTER, removes dana; then dev2 is the last one.
    expect((await call('POST', `${path}/remove`, dev2, { roleAssignments: [user(accounts.dana, 'ADMINISTER')] })).status).toBe(200);
    const lastOne = await call('POST', `${path}/remove`, dev2, { roleAssignments: [user(dev2Id, 'ADMINISTER')] });
    expect([lastOne.status, lastOne.body.error.code]).toEqual([409, 'last_admin_protected']);
    // Removing what it does not have changes nothing.
    const idempotent = await call('POST', `${path}/remove`, dev2, { roleAssignments: [user(accounts.gus, 'USE')] });
    expect(idempotent.body.data.data).toHaveLength(2);
    expect(idempotent.body.data.data).toEqual(expect.arrayContaining([user(accounts.mo, 'USE'), user(dev2Id, 'ADMINISTER')]));

    expect((await events('marking_role_added')).filter((e) => e.details.markingId === id).map((e) => e.details.principalId)).toEqual(
      expect.arrayContaining([accounts.mo, dev2Id]),
    );
    expect((await events('marking_role_removed')).filter((e) => e.details.markingId === id)).toEqual([
      expect.objectContaining({ actorId: dev2Id, details: expect.objectContaining({ principalId: accounts.dana, role: 'ADMINISTER' }) }),
    ]);
  });

  it('a group holds roles for its live members; while it is a marking’s last ADMINISTER it cannot be deleted', async () => {
    const group = await call('POST', '/api/v1/admin/groups', dana, { name: 'Marking admins' });
    const groupId = group.body.data.id;
    const id = await marking(await category(), [{ principalType: 'GROUP', principalId: groupId, role: 'ADMINISTER' }]);
    const path = `/api/v1/admin/markings/${id}/roleAssignments`;
    // dana is no ADMINISTER until she is a member of the group.
    expect((await call('POST', `${path}/add`, dana, { roleAssignments: [user(accounts.dana, 'ADMINISTER')] })).status).toBe(403);
    expect((await call('POST', `/api/v1/admin/groups/${groupId}/groupMembers/add`, dana, { principalIds: [accounts.dana] })).status).toBe(
      200,
    );
    const deleted = await call('DELETE', `/api/v1/admin/groups/${groupId}`, dana);
    expect([deleted.status, deleted.body.error.code]).toEqual([409, 'last_admin_protected']);
    expect((await call('POST', `${path}/add`, dana, { roleAssignments: [user(accounts.dana, 'ADMINISTER')] })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/admin/groups/${groupId}`, dana)).status).toBe(200);
    expect(await roles(id)).toEqual([user(accounts.dana, 'ADMINISTER')]);
  });

  it('a dry run changes nothing', async () => {
    const id = await marking(await category());
    const res = await svc.call('POST', `/api/v1/admin/markings/${id}/roleAssignments/add`, {
      body: { roleAssignments: [user(accounts.mo, 'USE')] },
      headers: { ...bearer(dana), 'x-svc-dry-run': 'true' },
    });
    expect(res.status).toBe(202);
    expect(await roles(id)).toEqual([user(accounts.dana, 'ADMINISTER')]);
  });
});

describe('resource markings', () => {
  it('adding needs USE and removing DECLASSIFY on each marking; object types inherit their ontology’s', async () => {
    const categoryId = await category();
    const id = await marking(categoryId, [user(accounts.dana, 'ADMINISTER'), user(dev2Id, 'USE')]);
    const markings = (rid: string, key = dana) => call('GET', `/api/v1/filesystem/resources/${rid}/markings`, key);
    expect((await markings(orderRid)).body.data).toEqual({ data: [] });

    // A developer (Owner) without USE on the marking may not apply it.
    const other = await marking(categoryId);
    const noUse = await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, dev2, { markingIds: [other] });
    expect([noUse.status, noUse.body.error.code]).toEqual([403, 'forbidden']);

    const added = await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, dev2, { markingIds: [id] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.data).toEqual([expect.objectContaining({ markingId: id, categoryType: 'CONJUNCTIVE', inheritedFrom: null })]);
    // USE does not remove it: DECLASSIFY does (ADMINISTER includes it).
    const noDeclassify = await call('POST', `/api/v1/filesystem/resources/${orderRid}/removeMarkings`, dev2, { markingIds: [id] });
    expect([noDeclassify.status, noDeclassify.body.error.code]).toEqual([403, 'forbidden']);

    // The ontology's markings reach its object types.
    const onOntology = await call('POST', `/api/v1/filesystem/resources/${ONTOLOGY_RID}/addMarkings`, dana, { markingIds: [other] });
    expect(onOntology.status, JSON.stringify(onOntology.body)).toBe(200);
    const customerRid = (await call('GET', '/api/v1/ontologies/cell-acme/objectTypes/sales.Customer', dana)).body.data.rid;
    expect((await markings(customerRid)).body.data.data).toEqual([
      expect.objectContaining({ markingId: other, inheritedFrom: ONTOLOGY_RID }),
    ]);
    // dev2 lacks `other`: the whole ontology and its types are gone for it, whatever its role.
    expect((await markings(customerRid, dev2)).status).toBe(404);
    expect((await call('GET', `/api/v1/filesystem/resources/${customerRid}`, dev2)).status).toBe(404);

    for (const [rid, markingId] of [
      [ONTOLOGY_RID, other],
      [orderRid, id],
    ] as const) {
      const removed = await call('POST', `/api/v1/filesystem/resources/${rid}/removeMarkings`, dana, { markingIds: [markingId] });
      expect([removed.status, removed.body.data.data]).toEqual([200, []]);
    }
    expect((await call('GET', `/api/v1/filesystem/resources/${customerRid}`, dev2)).status).toBe(200);
    const recorded = [...(await events('resource_marking_added')), ...(await events('resource_marking_removed'))].filter(
      (e) => e.details.rid === orderRid,
    );
    expect(recorded.map((e) => e.actorId).sort()).toEqual([accounts.dana, dev2Id].sort());
  });

  it('refuses markings of another company, and stays unseen by those without a role', async () => {
    const globexCategory = await category('CONJUNCTIVE', gus);
    const globexMarking = await marking(globexCategory, [user(accounts.gus, 'ADMINISTER')], gus);
    const foreign = await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, dana, { markingIds: [globexMarking] });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'marking_not_found']);
    const unseen = await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, gus, { markingIds: [globexMarking] });
    expect([unseen.status, unseen.body.error.code]).toEqual([404, 'not_found']);
    const bad = await call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, dana, { markingIds: [] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_payload']);
    const dry = await svc.call('POST', `/api/v1/filesystem/resources/${orderRid}/addMarkings`, {
      body: { markingIds: [await marking(await category())] },
      headers: { ...bearer(dana), 'x-svc-dry-run': 'true' },
    });
    expect(dry.status).toBe(202);
    expect((await call('GET', `/api/v1/filesystem/resources/${orderRid}/markings`, dana)).body.data.data).toEqual([]);
  });

  it('a disjunctive category asks for any one of its markings on a resource, a conjunctive one for all', async () => {
    const anyOf = await category('DISJUNCTIVE');
    const red = await marking(anyOf, [user(accounts.dana, 'ADMINISTER'), user(dev2Id, 'USE')]);
    const blue = await marking(anyOf);
    const rid = ONTOLOGY_RID;
    expect((await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, dana, { markingIds: [red, blue] })).status).toBe(200);
    expect((await call('GET', `/api/v1/filesystem/resources/${rid}`, dev2)).status).toBe(200);
    const allOf = await category('CONJUNCTIVE');
    const green = await marking(allOf, [user(accounts.dana, 'ADMINISTER'), user(dev2Id, 'USE')]);
    const amber = await marking(allOf);
    expect((await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, dana, { markingIds: [green] })).status).toBe(200);
    expect((await call('GET', `/api/v1/filesystem/resources/${rid}`, dev2)).status).toBe(200);
    expect((await call('POST', `/api/v1/filesystem/resources/${rid}/addMarkings`, dana, { markingIds: [amber] })).status).toBe(200);
    expect((await call('GET', `/api/v1/filesystem/resources/${rid}`, dev2)).status).toBe(404);
    expect(
      (await call('POST', `/api/v1/filesystem/resources/${rid}/removeMarkings`, dana, { markingIds: [red, blue, green, amber] })).status,
    ).toBe(200);
  });
});

describe('an account leaving the company', () => {
  it('loses its roles on the company’s markings with its license; while it is the last ADMINISTER the removal is refused', async () => {
    const leaver = await createUser(svc, op, 'leaver', [{ cellId: 'cell-acme', role: 'developer' }]);
    const used = await marking(await category(), [user(accounts.dana, 'ADMINISTER'), user(leaver.id, 'USE')]);
    const sole = await marking(await category(), [user(leaver.id, 'ADMINISTER')]);
    const remove = () => call('DELETE', `/api/v1/admin/users/${leaver.id}/organizations/cell-acme`, op);
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('last_admin_protected');
    expect(refused.body.error.details.markingIds).toEqual([sole]);
    expect((await roles(used)).map((r: { principalId: string }) => r.principalId)).toContain(leaver.id);

    expect(
      (
        await call('POST', `/api/v1/admin/markings/${sole}/roleAssignments/add`, op, {
          roleAssignments: [user(accounts.dana, 'ADMINISTER')],
        })
      ).status,
    ).toBe(200);
    expect((await remove()).status).toBe(200);
    expect((await roles(used)).map((r: { principalId: string }) => r.principalId)).not.toContain(leaver.id);
    expect((await roles(sole)).map((r: { principalId: string }) => r.principalId)).toEqual([accounts.dana]);
    const withdrawn = (await events('marking_role_removed')).filter((e) => e.details.principalId === leaver.id);
    expect(withdrawn.map((e) => e.details.markingId).sort()).toEqual([used, sole].sort());
  });
});
