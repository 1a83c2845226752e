// Safe relative bundle paths. A path is Unicode-normalized (NFC) and then either accepted
// unchanged or rejected with every reason; nothing is silently rewritten (no `./` stripping,
// no slash collapsing), so the stored path is exactly what the author sees.
import { MANIFEST_FILE_NAMES } from '../manifest/manifest.ts';

const MAX_PATH_LENGTH = 256;

// Control and invisible formatting characters (incl. bidi overrides that disguise names),
// backslash, and characters that are special in URLs or invalid on Windows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\\?#%:*"<>|]/u;

// Generated pages live beside the bundle under the app address (spec "Page addresses").
const RESERVED_ROOT_NAMES = new Set(['about', 'about.md', '_v']);

export type PathRejection = { code: string; message: string };
export type PathCheck = { ok: true; path: string } | { ok: false; path: string; rejections: PathRejection[] };

/** Key under which two paths count as the same file: case-insensitive, as on many disks and CDNs. */
export function pathKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

export function checkBundlePath(raw: string): PathCheck {
  const path = raw.normalize('NFC');
  const rejections: PathRejection[] = [];
  const reject = (code: string, message: string) => {
    if (!rejections.some((r) => r.code === code)) rejections.push({ code, message });
  };
  const segments = path.split('/');
  const lower = segments.map((segment) => segment.toLowerCase());

  if (path.length === 0) reject('path_empty', 'path is empty');
  if (path.length > MAX_PATH_LENGTH) reject('path_too_long', `path is longer than ${MAX_PATH_LENGTH} characters`);
  if (path.startsWith('/')) reject('path_absolute', 'path must be relative');
  if (FORBIDDEN_CHARACTERS.test(path)) reject('path_character', 'path contains a control character, backslash or one of ? # % : * " < > |');
  for (const segment of segments) {
    if (segment === '' && path !== '') reject('path_empty_segment', 'path has an empty segment (//, or a leading or trailing /)');
    else if (segment === '..') reject('path_parent_segment', 'path must not contain ..');
    else if (segment.startsWith('.')) reject('path_hidden', 'hidden files and folders (leading dot) are not allowed');
    else if (/[ .]$/.test(segment)) reject('path_trailing_dot', 'a path segment must not end with a dot or space');
  }
  if (lower.includes('node_modules')) reject('path_node_modules', 'node_modules must not be uploaded');
  if (path.toLowerCase().includes('developer/sdk/'))
    reject('path_sdk_copy', 'a copy of the SDK (developer/sdk/) must not ship; the platform serves it');
  if (segments.length === 1 && (MANIFEST_FILE_NAMES as readonly string[]).includes(lower[0] ?? '')) {
    reject('path_manifest_file', 'the manifest travels in the "manifest" field, not as a file');
  }
  if (RESERVED_ROOT_NAMES.has(lower[0] ?? '')) reject('path_reserved', `"${segments[0]}" is reserved for pages the platform generates`);

  return rejections.length === 0 ? { ok: true, path } : { ok: false, path, rejections };
}
