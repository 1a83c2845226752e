// Validates a version bundle (manifest + files) without touching the database: collects every
// problem instead of stopping at the first, and on success returns what the route stores.
import type { Manifest } from '../manifest/manifest.ts';
import { parseManifest, salvageManifest } from '../manifest/parse-manifest.ts';
import type { SdkName } from '../manifest/sdk.ts';
import { formatPath, type Problem, problem, quoted } from '../problems.ts';
import { analyzeFiles } from './analyze.ts';
import { contentPolicyWarnings, type PageHosting } from './csp-warnings.ts';
import { type DecodedFile, decodeContent, decodedSize, decodeText } from './decode.ts';
import { bundleDigest, sha256Hex } from './digest.ts';
import { checkEvolveSlots } from './evolve-slots.ts';
import { fileProblem } from './file-problem.ts';
import { ALLOWED_EXTENSIONS, extensionOf, fileTypeOf } from './file-types.ts';
import { checkBundlePath, pathKey } from './paths.ts';
import { type BundleInput, MAX_BUNDLE_FILES, tooManyFiles } from './request.ts';
import { checkSdkUsage } from './sdk-usage.ts';
import { checkSkills, generatedSkill, type Skill } from './skills.ts';
import { limitWarnings, pollingWarnings, scheduleWarnings, type Warning } from './warnings.ts';

export const MAX_BUNDLE_BYTES = 3 * 1024 * 1024;

export type BundleFile = { path: string; bytes: Buffer; sha256: string; contentType: string };

export type ValidBundle = {
  ok: true;
  manifest: Manifest;
  /** Sorted by path. */
  files: BundleFile[];
  /** The bundle's skills, or the one generated skill when it ships none. */
  skills: Skill[];
  /** SDKs the files actually load (the card shows them next to the registered ones). */
  sdkUsed: SdkName[];
  warnings: Warning[];
  digest: string;
  /** Decoded bytes of all files. */
  size: number;
};
/** Decoded files as a version stores them: hashed, typed by their path, sorted by path. */
export function bundleFiles(decoded: readonly { path: string; bytes: Buffer }[]): BundleFile[] {
  return decoded
    .map((file) => ({
      path: file.path,
      bytes: file.bytes,
      sha256: sha256Hex(file.bytes),
      contentType: fileTypeOf(file.path)?.contentType ?? 'application/octet-stream',
    }))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

export type InvalidBundle = { ok: false; problems: Problem[]; warnings: Warning[] };

type ReadFiles = { decoded: DecodedFile[]; paths: Set<string>; problems: Problem[]; tooLarge: boolean };

// Count and total size first, from the request alone: files beyond the limit are not looked at,
// and an oversized bundle is not decoded or analysed. Then each file's path, type and encoding,
// and duplicates.
function readFiles(input: BundleInput): ReadFiles {
  const problems: Problem[] = [];
  const files = input.files.slice(0, MAX_BUNDLE_FILES);
  if (input.files.length > MAX_BUNDLE_FILES) problems.push(tooManyFiles(input.files.length));
  const size = files.reduce((total, file) => total + decodedSize(file.encoding, file.content), 0);
  const tooLarge = size > MAX_BUNDLE_BYTES;
  if (tooLarge) problems.push(problem('files', 'bundle_too_large', `${size} bytes decoded; at most ${MAX_BUNDLE_BYTES} are allowed`));
  const decoded: DecodedFile[] = [];
  const paths = new Set<string>();
  const firstByKey = new Map<string, string>();
  files.forEach((file, index) => {
    const checked = checkBundlePath(file.path);
    if (!checked.ok)
      for (const r of checked.rejections) problems.push(fileProblem(index, 'path', r.code, `${quoted(file.path)}: ${r.message}`));
    const type = fileTypeOf(checked.path);
    if (type === undefined) {
      const extension = extensionOf(checked.path);
      problems.push(
        fileProblem(
          index,
          'path',
          'file_type',
          `${quoted(file.path)}: ${extension ? quoted(`.${extension}`) : 'a file without extension'} is not an allowed type (${ALLOWED_EXTENSIONS.join(', ')})`,
        ),
      );
    }
    const content = tooLarge ? undefined : decodeContent(file.encoding, file.content);
    if (content?.ok === false) problems.push(fileProblem(index, 'content', content.code, `${quoted(checked.path)}: ${content.message}`));
    const text = content?.ok && type?.text ? decodeText(content.bytes) : undefined;
    if (content?.ok && type?.text && text === undefined)
      problems.push(fileProblem(index, 'content', 'content_invalid_utf8', `${quoted(checked.path)}: a text file must be valid UTF-8`));
    if (!checked.ok) return;
    const earlier = firstByKey.get(pathKey(checked.path));
    if (earlier !== undefined) {
      problems.push(
        fileProblem(
          index,
          'path',
          'path_duplicate',
          `${JSON.stringify(checked.path)} duplicates ${JSON.stringify(earlier)} (paths are compared case-insensitively)`,
        ),
      );
      return;
    }
    firstByKey.set(pathKey(checked.path), checked.path);
    paths.add(checked.path);
    if (content?.ok && type !== undefined) decoded.push({ index, path: checked.path, bytes: content.bytes, text });
  });
  return { decoded, paths, problems, tooLarge };
}

function checkPages(manifest: Partial<Manifest>, paths: ReadonlySet<string>): Problem[] {
  const pages = [
    ['entry', manifest.entry],
    ['mcpUi', manifest.mcpUi],
  ] as const;
  return pages.flatMap(([field, page]) =>
    typeof page === 'string' && !paths.has(page)
      ? [problem(formatPath('manifest', [field]), 'page_missing', `${field} "${page}" is not among the files`)]
      : [],
  );
}

/** `hosting`: where the service serves the SDK and the pages (the SDK-host warning needs it). */
export function validateBundle(input: BundleInput, hosting?: PageHosting): ValidBundle | InvalidBundle {
  const parsed = parseManifest(input.manifest);
  // When the manifest is invalid, the checks below still use every field that is valid alone.
  const manifest = parsed.ok ? parsed.manifest : salvageManifest(input.manifest);
  const files = readFiles(input);
  const analyses = analyzeFiles(files.decoded);
  const skills = checkSkills(files.decoded);
  const sdk = checkSdkUsage(analyses, manifest.sdk);
  const problems = [
    ...(parsed.ok ? [] : parsed.problems),
    ...checkPages(manifest, files.paths),
    ...files.problems,
    ...skills.problems,
    ...sdk.problems,
    // Slots are declared in pages: unread pages (an oversized bundle) would make every token look unused.
    ...(files.tooLarge ? [] : checkEvolveSlots(manifest.evolve, analyses)),
  ];
  const warnings = [
    ...limitWarnings(manifest.limits),
    ...scheduleWarnings(manifest.workflow),
    ...pollingWarnings(analyses),
    ...contentPolicyWarnings(analyses, manifest.cdn ?? [], hosting),
  ];
  if (!parsed.ok || problems.length > 0) return { ok: false, problems, warnings };

  const stored = bundleFiles(files.decoded);
  return {
    ok: true,
    manifest: parsed.manifest,
    files: stored,
    skills: skills.skills.length > 0 ? skills.skills : [generatedSkill(parsed.manifest)],
    sdkUsed: sdk.sdkUsed,
    warnings,
    digest: bundleDigest(stored, input.manifest),
    size: stored.reduce((total, file) => total + file.bytes.length, 0),
  };
}
