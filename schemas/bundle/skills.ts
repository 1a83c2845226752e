// Skills live at skills/<name>/SKILL.md with optional skills/<name>/references/**. They are not
// registered in the manifest; any broken skill rejects the whole version. An app without
// skills gets one generated from its manifest.
import type { Manifest } from '../manifest/manifest.ts';
import { type Problem, problem } from '../problems.ts';
import type { DecodedFile } from './decode.ts';
import { fileProblem } from './file-problem.ts';
import { parseFrontmatter } from './frontmatter.ts';

const SKILLS_FOLDER = 'skills';
const SKILL_FILE_NAME = 'SKILL.md';
export const MAX_SKILLS = 12;
export const MAX_SKILL_FILE_BYTES = 32 * 1024;
export const MAX_SKILL_DESCRIPTION = 1024;
const SKILL_NAME = /^[a-z][a-z0-9-]{0,63}$/;
const FRONTMATTER_KEYS = ['name', 'description'];

export type Skill = {
  name: string;
  description: string;
  /** Path of SKILL.md in the bundle (and under the app address). */
  path: string;
  /** Full SKILL.md text. */
  content: string;
  references: string[];
  generated: boolean;
};

type SkillFolder = { name: string; first: DecodedFile; skillFile?: DecodedFile; references: DecodedFile[] };

function skillPath(name: string): string {
  return `${SKILLS_FOLDER}/${name}/${SKILL_FILE_NAME}`;
}

function collectFolders(files: readonly DecodedFile[], problems: Problem[]): Map<string, SkillFolder> {
  const folders = new Map<string, SkillFolder>();
  for (const file of files) {
    const [top, name, ...rest] = file.path.split('/');
    if (top !== SKILLS_FOLDER) continue;
    if (file.bytes.length > MAX_SKILL_FILE_BYTES) {
      problems.push(
        fileProblem(file.index, 'content', 'skill_file_too_large', `${file.path} is larger than ${MAX_SKILL_FILE_BYTES} bytes`),
      );
    }
    const isSkillFile = rest.length === 1 && rest[0] === SKILL_FILE_NAME;
    const isReference = rest.length >= 2 && rest[0] === 'references';
    if (name === undefined || !(isSkillFile || isReference)) {
      problems.push(
        fileProblem(
          file.index,
          'path',
          'skill_layout',
          `${file.path}: files under skills/ must be skills/<name>/SKILL.md or skills/<name>/references/...`,
        ),
      );
      continue;
    }
    const folder = folders.get(name) ?? { name, first: file, references: [] };
    if (isSkillFile) folder.skillFile = file;
    else folder.references.push(file);
    folders.set(name, folder);
  }
  return folders;
}

function checkSkillFile(folder: SkillFolder, file: DecodedFile, text: string, problems: Problem[]): Skill | undefined {
  const fail = (code: string, message: string) => problems.push(fileProblem(file.index, 'content', code, `${file.path}: ${message}`));
  const before = problems.length;
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) {
    fail('skill_frontmatter', parsed.message);
    return undefined;
  }
  for (const key of parsed.fields.keys())
    if (!FRONTMATTER_KEYS.includes(key)) fail('skill_frontmatter', `unknown frontmatter key "${key}"`);
  const name = parsed.fields.get('name');
  if (name !== folder.name)
    fail('skill_name_mismatch', `frontmatter name ${JSON.stringify(name ?? null)} must equal the folder name "${folder.name}"`);
  const description = parsed.fields.get('description') ?? '';
  if (description.trim().length === 0 || description.length > MAX_SKILL_DESCRIPTION) {
    fail('skill_description', `description must be 1 to ${MAX_SKILL_DESCRIPTION} characters`);
  }
  if (parsed.body.trim() === '') fail('skill_body_empty', 'the body after the frontmatter is empty');
  if (problems.length > before) return undefined;
  return {
    name: folder.name,
    description,
    path: file.path,
    content: text,
    references: folder.references.map((r) => r.path).sort(),
    generated: false,
  };
}

/** Checks every skill folder; `skills` holds the valid ones. */
export function checkSkills(files: readonly DecodedFile[]): { skills: Skill[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const folders = collectFolders(files, problems);
  if (folders.size > MAX_SKILLS)
    problems.push(problem('files', 'too_many_skills', `${folders.size} skills; at most ${MAX_SKILLS} are allowed`));
  const skills: Skill[] = [];
  for (const folder of folders.values()) {
    if (!SKILL_NAME.test(folder.name)) {
      problems.push(
        fileProblem(folder.first.index, 'path', 'skill_name_invalid', `skill folder "${folder.name}" must match ${SKILL_NAME.source}`),
      );
    }
    if (folder.skillFile === undefined) {
      problems.push(fileProblem(folder.first.index, 'path', 'skill_missing', `skills/${folder.name}/ has no ${SKILL_FILE_NAME}`));
    } else if (folder.skillFile.text !== undefined && folder.skillFile.bytes.length <= MAX_SKILL_FILE_BYTES) {
      // An oversized SKILL.md already has its problem (skill_file_too_large) and is not parsed.
      const skill = checkSkillFile(folder, folder.skillFile, folder.skillFile.text, problems);
      if (skill) skills.push(skill);
    }
  }
  return { skills: skills.sort((a, b) => a.name.localeCompare(b.name)), problems };
}

function exportSection(manifest: Manifest): string[] {
  return manifest.exports.flatMap((item) => [
    `### ${item.name}: ${item.title}`,
    '',
    ...(item.description ? [item.description, ''] : []),
    `Returns \`${item.type}\` records (at most ${item.limit}).`,
    ...Object.entries(item.input).map(
      ([name, input]) =>
        `- \`${name}\` (${input.type}${input.required ? ', required' : ''})${input.title ? `: ${input.title}` : ''}${input.description ? ` - ${input.description}` : ''}`,
    ),
    '',
  ]);
}

function generatedDescription(manifest: Manifest): string {
  const text = [manifest.summary, manifest.description ?? '', manifest.title, manifest.slug].map((s) => s.trim()).find((s) => s.length > 0);
  return (text ?? manifest.slug).slice(0, MAX_SKILL_DESCRIPTION);
}

/** SKILL.md text for an app that ships no skills, built from what the manifest says. */
export function generateSkill(manifest: Manifest): string {
  const description = generatedDescription(manifest);
  const lines = [
    '---',
    `name: ${manifest.slug}`,
    `description: ${JSON.stringify(description)}`,
    '---',
    '',
    `# ${manifest.title}`,
    '',
    manifest.description ?? manifest.summary,
    '',
    ...(manifest.examples.length > 0 ? ['## When to use', '', ...manifest.examples.map((example) => `- "${example}"`), ''] : []),
    ...(manifest.exports.length > 0 ? ['## Capabilities', '', ...exportSection(manifest)] : []),
  ];
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

export function generatedSkill(manifest: Manifest): Skill {
  return {
    name: manifest.slug,
    description: generatedDescription(manifest),
    path: skillPath(manifest.slug),
    content: generateSkill(manifest),
    references: [],
    generated: true,
  };
}
