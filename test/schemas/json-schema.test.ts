import { describe, expect, it } from 'vitest';
import { manifestJsonSchema } from '../../schemas/manifest/json-schema.ts';

const ID = 'https://svc.example/schemas/manifest/v1.json';

describe('manifestJsonSchema', () => {
  const schema = manifestJsonSchema(ID) as {
    $schema: string;
    $id: string;
    properties: Record<string, Record<string, unknown>>;
    required: string[];
    additionalProperties: unknown;
  };

  it('is draft 2020-12 with the caller-given $id', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(ID);
    expect(manifestJsonSchema('other').$id).toBe('other');
  });

  it('describes the input side: only slug, version and title are required', () => {
    expect(schema.required.sort()).toEqual(['slug', 'title', 'version']);
  });

  it('rejects unknown keys and carries patterns and bounds', () => {
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties['slug']).toMatchObject({ pattern: '^[a-z][a-z0-9-]{1,47}$' });
    expect(schema.properties['title']).toMatchObject({ minLength: 1, maxLength: 60 });
    expect(schema.properties['$schema']).toMatchObject({ maxLength: 200 });
  });

  it('lists legacy values authors may still write', () => {
    expect(JSON.stringify(schema.properties['sdk'])).toContain('"improve"');
    expect(JSON.stringify(schema.properties['auth'])).toContain('"open"');
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
