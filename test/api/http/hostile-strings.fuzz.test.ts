import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { injected, rawGet, release } from '../../support/hosting.ts';
import { bearer, browser, passwordKey, resetRateLimits, seedCompanies, signIn } from '../../support/identity.ts';
import { SALES } from '../../support/ontology.ts';
import { startTestService, type TestService } from '../../support/service.ts';

// Every operation of the served OpenAPI document, called with a credential it accepts, with each
// string of a minimal body (and each key of its maps), each path and each query parameter in turn
// carrying a hostile value: U+0000, an unpaired surrogate, or the name of an inherited object
// property. None may answer 5xx; U+0000 and surrogates are `invalid_payload` wherever they are.

let svc: TestService;
const credentials: Record<'op' | 'key' | 'session' | 'ticket', Record<string, string>> = { op: {}, key: {}, session: {}, ticket: {} };

beforeAll(async () => {
  svc = await startTestService();
  const { op } = await seedCompanies(svc);
  const key = await passwordKey(svc, 'dana');
  credentials.op = bearer(op);
  credentials.key = bearer(key);
  credentials.session = browser(await signIn(svc, 'dana'), svc);
  await release(svc, key, { namespace: 'cell-acme', slug: 'notes', version: '1.0.0' });
  const page = await rawGet(`${svc.addresses.productionBase}/cell-acme/apps/notes`, bearer(key));
  credentials.ticket = bearer(injected(page.text).ticket);
  const defined = await svc.call('POST', '/api/v1/developer/semantic/cell-acme/types', { body: SALES, headers: bearer(key) });
  expect(defined.status, JSON.stringify(defined.body)).toBe(200);
  const O = '/api/v1/ontologies/cell-acme/objects';
  for (const [type, rows] of [
    ['sales.Customer', [{ id: 'c1', name: 'Ada', tier: 1 }]],
    ['sales.Order', [{ number: 1, amount: 2, note: 'n' }]],
  ] as const) {
    const res = await svc.call('POST', `${O}/${type}/import`, { body: rows, headers: bearer(key) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(() => svc.close());

type Schema = Record<string, any>;
type Segment = string | number | { key: true };
/** Where a hostile value goes: a string value, or the key of a map's one entry (`{key: true}` as last segment). */
type Slot = Segment[];

/** Plausible values of the fixture by name, so that requests get past their first checks. */
const KNOWN: Record<string, string> = {
  namespace: 'cell-acme',
  ns: 'cell-acme',
  cellId: 'cell-acme',
  cell: 'cell-acme',
  ontology: 'cell-acme',
  slug: 'notes',
  objectType: 'sales.Customer',
  primaryKey: 'c1',
  linkType: 'orders',
  linkedPrimaryKey: '1',
  channel: 'production',
  version: '1.0.0',
  apiName: 'sales.Customer',
  property: 'name',
  field: 'name',
  login: 'dana',
  email: 'someone@example.com',
};

const deref = (doc: Schema, schema: Schema): Schema =>
  typeof schema?.$ref === 'string' ? deref(doc, doc.components.schemas[schema.$ref.split('/').pop()!]) : (schema ?? {});

/** A small value of `schema`, recording every place a string goes. */
function minimal(doc: Schema, raw: Schema, name: string, at: Segment[], slots: Slot[], depth = 0): unknown {
  const schema = deref(doc, raw);
  if (depth > 12) return null;
  const choice = schema.anyOf ?? schema.oneOf;
  if (choice) return minimal(doc, choice.find((s: Schema) => deref(doc, s).type !== 'null') ?? choice[0], name, at, slots, depth + 1);
  if (schema.allOf) return minimal(doc, schema.allOf[0], name, at, slots, depth + 1);
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if ('default' in schema && typeof schema.default !== 'string') return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      slots.push(at);
      if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
      if (schema.format === 'date') return '2026-01-01';
      return KNOWN[name] ?? 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'array':
      return schema.maxItems === 0 ? [] : [minimal(doc, schema.items ?? {}, name, [...at, 0], slots, depth + 1)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = minimal(doc, schema.properties?.[key] ?? {}, key, [...at, key], slots, depth + 1);
      const entry = schema.additionalProperties ?? schema.propertyNames;
      if (typeof entry === 'object' && !schema.properties) {
        slots.push([...at, { key: true }]);
        out[KNOWN.property!] = minimal(doc, schema.additionalProperties ?? {}, 'value', [...at, KNOWN.property!], slots, depth + 1);
      }
      return out;
    }
    default:
      slots.push(at);
      return 'x';
  }
}

/** `base` with the value at `slot` replaced by `value` (or, for a key slot, the map's entry renamed). */
function placed(base: unknown, slot: Slot, value: string): unknown {
  const copy = structuredClone(base);
  if (slot.length === 0) return value;
  let parent: any = copy;
  for (const segment of slot.slice(0, -1)) parent = parent[segment as string | number];
  const last = slot.at(-1)!;
  if (typeof last === 'object') {
    const [only] = Object.keys(parent);
    const entry = parent[only!];
    delete parent[only!];
    Object.defineProperty(parent, value, { value: entry, enumerable: true, configurable: true, writable: true });
  } else parent[last] = value;
  return copy;
}

/** The kinds of hostile value, each an arbitrary so that every run tries other surroundings. */
const around = (mark: fc.Arbitrary<string>) =>
  fc.tuple(fc.string({ maxLength: 6 }), mark, fc.string({ maxLength: 6 })).map((p) => p.join(''));
const KINDS = {
  nul: around(fc.constant('\0')),
  surrogate: around(fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit))),
  inherited: fc.constantFrom('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'),
} as const;
type Kind = keyof typeof KINDS;

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

function credentialFor({ path, op }: Operation): Record<string, string> {
  const kinds = (op.security ?? []).flatMap((s: Schema) => Object.keys(s));
  if (kinds.length === 0) return {};
  if (path.startsWith('/api/v1/admin/') || path.startsWith('/api/v1/control-plane/')) return credentials.op;
  if (kinds.includes('developerKey')) return credentials.key;
  if (kinds.includes('webSession')) return credentials.session;
  return credentials.ticket;
}

/** One request; an event stream is closed as soon as its status is known. */
async function send(operation: Operation, params: Record<string, string>, query: Record<string, string>, body: unknown) {
  const path = operation.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => params[name]!);
  const search = new URLSearchParams(query).toString();
  const headers: Record<string, string> = { ...credentialFor(operation) };
  if (operation.method !== 'get') headers['x-svc-dry-run'] = 'true';
  if (body !== undefined) headers['content-type'] = 'application/json';
  await resetRateLimits(svc);
  const res = await fetch(`${svc.url}${path}${search ? `?${search}` : ''}`, {
    method: operation.method.toUpperCase(),
    headers,
    redirect: 'manual',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const stream = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (stream) await res.body?.cancel();
  const text = stream ? '' : await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // OAuth endpoints answer failures in the OAuth shape (RFC 6749 5.2), without problems.
  const oauth = typeof json?.error === 'string';
  return {
    status: res.status,
    refused: oauth
      ? json.error === 'invalid_request' && /U\+0000/.test(json.error_description)
      : json?.error?.code === 'invalid_payload' &&
        json.error.details?.problems?.some((p: Schema) => p.code === 'invalid_string' || p.code === 'invalid_key'),
    ticketOfAnotherApp: json?.error?.code === 'forbidden' && /ticket admits only/.test(json.error.message),
    text,
  };
}

/**
 * A path value as the URL carries it. No UTF-8 exists for a lone surrogate, so the URL carries its
 * CESU-8 bytes, which no decoder turns back into one (a query value becomes U+FFFD): only the body
 * can carry one.
 */
const inUrl = (value: string) => (value.isWellFormed() ? encodeURIComponent(value) : value.replace(/[\ud800-\udfff]/g, '%ED%A0%80'));

it('no documented operation answers 5xx to U+0000, a surrogate or an inherited property name in any string, and U+0000 or a surrogate is invalid_payload', async () => {
  const doc = (await svc.call('GET', '/api/v1/openapi.json')).body as Schema;
  const operations: Operation[] = Object.entries(doc.paths as Schema).flatMap(([path, item]) =>
    Object.entries(item as Schema).map(([method, op]) => ({ method, path, op })),
  );
  expect(operations.length).toBeGreaterThan(100);
  const failures: string[] = [];
  let requests = 0;
  for (const operation of operations) {
    const parameters: Schema[] = operation.op.parameters ?? [];
    const pathParams = parameters.filter((p) => p.in === 'path');
    const queryParams = parameters.filter((p) => p.in === 'query');
    const params = Object.fromEntries(pathParams.map((p) => [p.name, encodeURIComponent(KNOWN[p.name] ?? 'x')]));
    const query = Object.fromEntries(queryParams.filter((p) => p.required).map((p) => [p.name, KNOWN[p.name] ?? 'x']));
    const bodySchema = operation.op.requestBody?.content?.['application/json']?.schema;
    const slots: Slot[] = [];
    const body = bodySchema ? minimal(doc, bodySchema, 'body', [], slots) : undefined;
    const label = `${operation.method.toUpperCase()} ${operation.path}`;

    for (const kind of Object.keys(KINDS) as Kind[]) {
      await fc.assert(
        fc.asyncProperty(KINDS[kind], async (value) => {
          const tries: { where: string; urlBorne: boolean; run: () => ReturnType<typeof send> }[] = [
            ...pathParams.map((p) => ({
              where: `path ${p.name}`,
              urlBorne: true,
              run: () => send(operation, { ...params, [p.name]: inUrl(value) }, query, body),
            })),
            ...queryParams.map((p) => ({
              where: `query ${p.name}`,
              urlBorne: true,
              run: () => send(operation, params, { ...query, [p.name]: value }, body),
            })),
            ...slots.map((slot) => ({
              where: `body ${JSON.stringify(slot)}`,
              urlBorne: false,
              run: () => send(operation, params, query, placed(body, slot, value)),
            })),
          ];
          for (const { where, urlBorne, run } of tries) {
            const res = await run();
            requests++;
            const what = `${label} ${kind} ${JSON.stringify(value)} in ${where}: ${res.status} ${res.text.slice(0, 300)}`;
            if (res.status >= 500) failures.push(what);
            // A ticket is checked against the app its path names before any validation.
            const mustRefuse = (kind === 'nul' || (kind === 'surrogate' && !urlBorne)) && !res.ticketOfAnotherApp;
            if (mustRefuse && !res.refused) {
              failures.push(`expected invalid_payload: ${what}`);
            }
          }
        }),
        { numRuns: 1 },
      );
    }
  }
  expect(requests).toBeGreaterThan(operations.length);
  expect(failures).toEqual([]);
  // Every documented operation, several requests each: it grows with the API.
}, 120_000);
