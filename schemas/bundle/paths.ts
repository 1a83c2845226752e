// Safe relative bundle paths. A path is Unicode-normalized (NFC) and then either accepted
// unchanged or rejected with every reason; nothing is silently rewritten (no `./` stripping,
// no slash collapsing), so the stored path is exactly what the author sees. Every check is a
// single pass or a pattern that matches one way only, so the cost is linear in the path.
import { MANIFEST_FILE_NAMES } from '../manifest/manifest.ts';

const MAX_PATH_LENGTH = 256;

// Control and invisible formatting characters (incl. bidi overrides that disguise names),
// backslash, and characters that are special in URLs or invalid on Windows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\\?#%:*"<>|]/u;

// Generated pages live beside the bundle under the app address (spec "Page addresses").
const RESERVED_ROOT_NAMES = new Set(['about', 'about.md', '_v']);

// Device names on Windows, whatever the case and extension (`con.txt`, `Lpt1.js`): such a file
// cannot be created there, so a bundle holding one breaks when checked out or unpacked. The list
// is Microsoft's ("Naming Files, Paths, and Namespaces"); the superscript forms (COM¹) fall
// under the NFKC rule.
const WINDOWS_DEVICE_NAME = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

export type PathRejection = { code: string; message: string };
export type PathCheck = { ok: true; path: string } | { ok: false; path: string; rejections: PathRejection[] };

/** Key under which two paths count as the same file: case-insensitive, as on many disks and CDNs. */
export function pathKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/**
 * A safe relative path of any file the service stores by path (bundle files, media items): the
 * rules that keep a path from escaping, hiding or changing meaning on another system.
 */
export function checkRelativePath(raw: string): PathCheck {
  return checkPath(raw, () => undefined);
}

/** A bundle file's path: a safe relative path, and none of the names the platform keeps for itself. */
export function checkBundlePath(raw: string): PathCheck {
  return checkPath(raw, (path, segments, lower, reject) => {
    if (lower.includes('node_modules')) reject('path_node_modules', 'node_modules must not be uploaded');
    if (path.toLowerCase().includes('developer/sdk/'))
      reject('path_sdk_copy', 'a copy of the SDK (developer/sdk/) must not ship; the platform serves it');
    if (segments.length === 1 && (MANIFEST_FILE_NAMES as readonly string[]).includes(lower[0] ?? '')) {
      reject('path_manifest_file', 'the manifest travels in the "manifest" field, not as a file');
    }
    if (RESERVED_ROOT_NAMES.has(lower[0] ?? '')) reject('path_reserved', `"${segments[0]}" is reserved for pages the platform generates`);
  });
}

type Reject = (code: string, message: string) => void;

function checkPath(raw: string, more: (path: string, segments: string[], lower: string[], reject: Reject) => void): PathCheck {
  const path = raw.normalize('NFC');
  // Nothing else is checked on a path this long: it is refused anyway, and it may be megabytes.
  if (path.length > MAX_PATH_LENGTH)
    return { ok: false, path, rejections: [{ code: 'path_too_long', message: `path is longer than ${MAX_PATH_LENGTH} characters` }] };
  const rejections: PathRejection[] = [];
  const reject: Reject = (code, message) => {
    if (!rejections.some((r) => r.code === code)) rejections.push({ code, message });
  };
  const segments = path.split('/');
  const lower = segments.map((segment) => segment.toLowerCase());

  if (path.length === 0) reject('path_empty', 'path is empty');
  if (path.startsWith('/')) reject('path_absolute', 'path must be relative');
  if (FORBIDDEN_CHARACTERS.test(path)) reject('path_character', 'path contains a control character, backslash or one of ? # % : * " < > |');
  // Compatibility characters turn into others under NFKC, which some file systems, archivers and
  // URL handlers apply: `．．/x.js` (fullwidth dots) or `․․/x.js` (one-dot leaders) become `../x.js`.
  if (path.normalize('NFKC') !== path)
    reject('path_compatibility_character', 'path contains a compatibility character (such as a fullwidth dot) that NFKC would change');
  for (const segment of segments) {
    if (segment === '' && path !== '') reject('path_empty_segment', 'path has an empty segment (//, or a leading or trailing /)');
    else if (segment === '..') reject('path_parent_segment', 'path must not contain ..');
    else if (segment.startsWith('.')) reject('path_hidden', 'hidden files and folders (leading dot) are not allowed');
    else if (/[ .]$/.test(segment)) reject('path_trailing_dot', 'a path segment must not end with a dot or space');
    // Windows ignores the extension and trailing spaces of a device name.
    if (WINDOWS_DEVICE_NAME.test((segment.split('.')[0] ?? '').trimEnd().toLowerCase())) {
      reject('path_windows_reserved', 'CON, PRN, AUX, NUL, COM0-9 and LPT0-9 are device names on Windows, with any extension');
    }
  }
  more(path, segments, lower, reject);

  return rejections.length === 0 ? { ok: true, path } : { ok: false, path, rejections };
}
