import { describe, expect, it } from 'vitest';
import type { DecodedFile } from '../../../schemas/bundle/decode.ts';
import { parseFrontmatter } from '../../../schemas/bundle/frontmatter.ts';
import { checkSkills, generatedSkill, generateSkill, MAX_SKILL_FILE_BYTES } from '../../../schemas/bundle/skills.ts';
import { parsed } from '../manifest-helpers.ts';
import { skillText } from './fixtures.ts';

const file = (index: number, path: string, text: string): DecodedFile => ({ index, path, bytes: Buffer.from(text), text });
const check = (...files: DecodedFile[]) => checkSkills(files);
const codes = (result: ReturnType<typeof checkSkills>) => result.problems.map((p) => [p.path, p.code]);

describe('checkSkills', () => {
  it('accepts a skill with references', () => {
    const result = check(file(0, 'skills/sales/SKILL.md', skillText('sales')), file(1, 'skills/sales/references/terms.md', '# Terms'));
    expect(result.problems).toEqual([]);
    expect(result.skills).toEqual([
      {
        name: 'sales',
        description: 'Answers questions about sales',
        path: 'skills/sales/SKILL.md',
        content: skillText('sales'),
        references: ['skills/sales/references/terms.md'],
        generated: false,
      },
    ]);
  });

  it('ignores files outside skills/', () => {
    expect(check(file(0, 'docs/SKILL.md', 'anything'))).toEqual({ skills: [], problems: [] });
  });

  it.each([
    ['name differs from folder', skillText('other'), 'files[0].content', 'skill_name_mismatch'],
    ['name missing', '---\ndescription: d\n---\nbody', 'files[0].content', 'skill_name_mismatch'],
    ['description missing', '---\nname: sales\n---\nbody', 'files[0].content', 'skill_description'],
    ['description empty', skillText('sales', '""'), 'files[0].content', 'skill_description'],
    ['description too long', skillText('sales', 'x'.repeat(1025)), 'files[0].content', 'skill_description'],
    ['body empty', skillText('sales', 'd', '\n  \n'), 'files[0].content', 'skill_body_empty'],
    ['no frontmatter', '# Sales', 'files[0].content', 'skill_frontmatter'],
    ['unknown key', '---\nname: sales\ndescription: d\nlicense: MIT\n---\nbody', 'files[0].content', 'skill_frontmatter'],
  ])('rejects SKILL.md with %s', (_label, text, path, code) => {
    expect(codes(check(file(0, 'skills/sales/SKILL.md', text)))).toContainEqual([path, code]);
  });

  it('accepts a description of exactly 1024 characters', () => {
    expect(check(file(0, 'skills/sales/SKILL.md', skillText('sales', 'x'.repeat(1024)))).problems).toEqual([]);
  });

  it('rejects any skill file above 32 KB, references included', () => {
    const big = 'x'.repeat(MAX_SKILL_FILE_BYTES + 1);
    expect(codes(check(file(0, 'skills/sales/SKILL.md', skillText('sales', 'd', big))))).toContainEqual([
      'files[0].content',
      'skill_file_too_large',
    ]);
    expect(codes(check(file(0, 'skills/sales/SKILL.md', skillText('sales')), file(1, 'skills/sales/references/a.md', big)))).toEqual([
      ['files[1].content', 'skill_file_too_large'],
    ]);
    expect(check(file(0, 'skills/sales/SKILL.md', skillText('sales', 'd', 'x'.repeat(MAX_SKILL_FILE_BYTES - 40))))).toMatchObject({
      problems: [],
    });
  });

  it('rejects files that do not fit the layout', () => {
    expect(codes(check(file(0, 'skills/README.md', 'x')))).toEqual([['files[0].path', 'skill_layout']]);
    expect(codes(check(file(0, 'skills/sales/SKILL.md', skillText('sales')), file(1, 'skills/sales/notes.md', 'x')))).toEqual([
      ['files[1].path', 'skill_layout'],
    ]);
    expect(codes(check(file(0, 'skills/sales/skill.md', 'x')))).toEqual([['files[0].path', 'skill_layout']]);
  });

  it('rejects a skill folder without SKILL.md and an invalid folder name', () => {
    expect(codes(check(file(0, 'skills/sales/references/a.md', 'x')))).toEqual([['files[0].path', 'skill_missing']]);
    expect(codes(check(file(0, 'skills/Sales/SKILL.md', skillText('Sales'))))).toEqual([['files[0].path', 'skill_name_invalid']]);
  });

  it('allows 12 skills and rejects 13', () => {
    const skills = (n: number) => Array.from({ length: n }, (_, i) => file(i, `skills/s${i}/SKILL.md`, skillText(`s${i}`)));
    expect(check(...skills(12)).problems).toEqual([]);
    expect(codes(check(...skills(13)))).toEqual([['files', 'too_many_skills']]);
  });
});

describe('generateSkill', () => {
  const manifest = parsed({
    summary: 'Open orders by region',
    description: 'A board of open orders.',
    examples: ['show open orders in the north'],
    exports: [
      {
        name: 'open_orders',
        title: 'Open orders',
        kind: 'query',
        type: 'sales.Order',
        input: { region: { type: 'text', required: true, title: 'Region' } },
      },
    ],
  });

  it('writes a SKILL.md from title, summary, description, examples and exports', () => {
    const text = generateSkill(manifest);
    expect(text).toContain('# Sales board');
    expect(text).toContain('A board of open orders.');
    expect(text).toContain('- "show open orders in the north"');
    expect(text).toContain('### open_orders: Open orders');
    expect(text).toContain('- `region` (text, required): Region');
  });

  it('passes the same checks as a shipped skill', () => {
    const skill = generatedSkill(manifest);
    expect(skill).toMatchObject({
      name: 'sales-board',
      path: 'skills/sales-board/SKILL.md',
      description: 'Open orders by region',
      generated: true,
    });
    const result = checkSkills([file(0, skill.path, skill.content)]);
    expect(result.problems).toEqual([]);
    expect(result.skills[0]?.description).toBe(skill.description);
  });

  it('quotes descriptions that would break the frontmatter', () => {
    const tricky = parsed({ summary: 'Sales: "north" # & more\nsecond line' });
    const fm = parseFrontmatter(generateSkill(tricky));
    expect(fm.ok && fm.fields.get('description')).toBe('Sales: "north" # & more\nsecond line');
  });

  it('falls back to the title when there is no summary or description', () => {
    expect(generatedSkill(parsed()).description).toBe('Sales board');
  });
});
