export type { PageHosting } from './csp-warnings.ts';
export { decodeContent, decodedSize } from './decode.ts';
export { bundleDigest, canonicalJson, manifestHash, sha256Hex } from './digest.ts';
export { ALLOWED_EXTENSIONS, fileTypeOf } from './file-types.ts';
export { type HtmlTag, parseHtml } from './html.ts';
export { checkRelativePath } from './paths.ts';
export type { BundleFileInput, BundleInput, StoredFileInput } from './request.ts';
export {
  bundleFileSchema,
  bundleFilesSchema,
  bundleInputSchema,
  MAX_BUNDLE_FILES,
  SHA256_HEX,
  storedFileSchema,
  storedFilesSchema,
  tooManyFilesInTotal,
} from './request.ts';
export { SDK_BASE_PATH } from './sdk-usage.ts';
export type { Skill } from './skills.ts';
export { generateSkill, MAX_SKILL_DESCRIPTION, MAX_SKILL_FILE_BYTES, MAX_SKILLS } from './skills.ts';
export type { BundleFile, InvalidBundle, ValidBundle } from './validate-bundle.ts';
export { bundleFiles, MAX_BUNDLE_BYTES, validateBundle } from './validate-bundle.ts';
export type { Warning } from './warnings.ts';
