import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../../config.ts';
import { configurationTable, generatedFiles } from '../../infra/docs/generated-docs.ts';

describe('generated documentation', () => {
  it.each(generatedFiles())('$file is what `npm run docs` writes', ({ file, committed, expected }) => {
    expect(committed, `${file} is out of date with the code: run npm run docs`).toBe(expected);
  });

  it('lists every configuration variable with its default', () => {
    const table = configurationTable();
    for (const name of Object.keys(EnvSchema.shape)) expect(table).toContain(`| \`${name}\` |`);
    expect(table).toContain('| `PORT` | `8080` | HTTP port');
    expect(table).toContain('| `DATABASE_URL` | unset |');
    expect(table).toContain('| `SVC_EMBEDDED_PG_PORT` | a free port |');
  });
});
