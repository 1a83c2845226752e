// Common web file types a static single-page app needs. Text types are decoded as UTF-8 and
// analysed; the rest are stored as bytes. `wasm` is allowed because the modeling SDK widens the
// CSP for WebAssembly; executables, archives and media beyond images/fonts are not.
type FileType = { contentType: string; text: boolean };

const FILE_TYPES: Record<string, FileType> = {
  html: { contentType: 'text/html; charset=utf-8', text: true },
  htm: { contentType: 'text/html; charset=utf-8', text: true },
  css: { contentType: 'text/css; charset=utf-8', text: true },
  js: { contentType: 'text/javascript; charset=utf-8', text: true },
  mjs: { contentType: 'text/javascript; charset=utf-8', text: true },
  json: { contentType: 'application/json; charset=utf-8', text: true },
  map: { contentType: 'application/json; charset=utf-8', text: true },
  webmanifest: { contentType: 'application/manifest+json; charset=utf-8', text: true },
  svg: { contentType: 'image/svg+xml; charset=utf-8', text: true },
  md: { contentType: 'text/markdown; charset=utf-8', text: true },
  txt: { contentType: 'text/plain; charset=utf-8', text: true },
  csv: { contentType: 'text/csv; charset=utf-8', text: true },
  png: { contentType: 'image/png', text: false },
  jpg: { contentType: 'image/jpeg', text: false },
  jpeg: { contentType: 'image/jpeg', text: false },
  webp: { contentType: 'image/webp', text: false },
  gif: { contentType: 'image/gif', text: false },
  avif: { contentType: 'image/avif', text: false },
  ico: { contentType: 'image/x-icon', text: false },
  woff: { contentType: 'font/woff', text: false },
  woff2: { contentType: 'font/woff2', text: false },
  ttf: { contentType: 'font/ttf', text: false },
  otf: { contentType: 'font/otf', text: false },
  wasm: { contentType: 'application/wasm', text: false },
};

export const ALLOWED_EXTENSIONS = Object.keys(FILE_TYPES);

/** Lowercased extension of the last path segment, '' when there is none. */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function fileTypeOf(path: string): FileType | undefined {
  return Object.hasOwn(FILE_TYPES, extensionOf(path)) ? FILE_TYPES[extensionOf(path)] : undefined;
}
