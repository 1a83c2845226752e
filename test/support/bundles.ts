type File = { path: string; encoding: 'utf8' | 'base64'; content: string };

/** A small valid bundle: the manifest plus an entry page and a script shared by every bundle. */
export function bundle(slug: string, version: string, extra: { files?: File[]; manifest?: object } = {}) {
  return {
    manifest: { manifestVersion: 1, slug, version, title: `App ${slug}`, ...extra.manifest },
    files: extra.files ?? [
      { path: 'index.html', encoding: 'utf8', content: `<!doctype html><title>${slug}</title><h1>${version}</h1>` },
      { path: 'app.js', encoding: 'utf8', content: 'console.log("shared");' },
    ],
  };
}
