// Deploy warnings for what an app page's Content-Security-Policy will block (the policy is
// api/hosting/headers.ts appContentPolicy: scripts only from the version's own files, the SDK at
// `{base_url}/developer/sdk/v1/` and the manifest's `cdn` hosts over https; no inline code).
// Without them the page deploys and then fails with a console message only. One warning per
// file and kind, so a hostile bundle cannot make the list long.
import { CDN_HOSTS } from '../manifest/manifest.ts';
import { formatPath, quoted } from '../problems.ts';
import type { FileAnalysis } from './analyze.ts';
import { sdkOfReference } from './sdk-usage.ts';
import type { Warning } from './warnings.ts';

/** Where the service serves the SDK and the app pages; without it the SDK's host is not checked. */
export type PageHosting = {
  /** `{base_url}/developer/sdk/v1/`, the only place the policy admits the SDK from. */
  sdkBase: string;
  /** The origins of the test and production pages, against which an address without host resolves. */
  pageOrigins: readonly string[];
};

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const SHOWN_SOURCES = 3;

const contentPath = (analysis: FileAnalysis) => formatPath('files', [analysis.file.index, 'content']);

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

function parseUrl(address: string, base?: string): URL | undefined {
  try {
    return new URL(address, base);
  } catch {
    return undefined;
  }
}

function inlineWarnings(analysis: FileAnalysis): Warning[] {
  const { file, inline } = analysis;
  const text = file.text ?? '';
  const advice = {
    script: 'move the code into a .js file of the app and load it with <script src="…">',
    handler: 'attach handlers with addEventListener in a .js file of the app',
  };
  return (['script', 'handler'] as const).flatMap((kind) => {
    const found = inline.filter((code) => code.kind === kind);
    const first = found[0];
    if (first === undefined) return [];
    const what =
      kind === 'script'
        ? `${found.length} inline <script> element(s), the first at line ${lineOf(text, first.tag.offset)},`
        : `${found.length} inline event handler(s) or javascript: URL(s), the first ${quoted(first.what)} at line ${lineOf(text, first.tag.offset)},`;
    return [
      {
        path: contentPath(analysis),
        code: kind === 'script' ? 'inline_script_blocked' : 'inline_handler_blocked',
        message: `${file.path} has ${what} which the page's Content-Security-Policy will not run (it allows no inline code): ${advice[kind]}`,
      },
    ];
  });
}

/** Why the policy refuses a script from `source`, or undefined when it admits it (or it is no address the policy decides). */
function refusal(source: string, cdn: readonly string[]): string | undefined {
  if (sdkOfReference(source) !== undefined) return undefined;
  const protocolRelative = source.startsWith('//');
  if (!protocolRelative && !SCHEME.test(source)) {
    return source.startsWith('/') ? 'lies outside the version’s own files (write the path relative to the page)' : undefined;
  }
  // An address without scheme takes the page's: https wherever pages are served beyond loopback.
  const url = parseUrl(protocolRelative ? `https:${source}` : source);
  if (url === undefined) return undefined;
  if (url.protocol === 'https:' && cdn.includes(url.host)) return undefined;
  if ((CDN_HOSTS as readonly string[]).includes(url.host)) {
    return url.protocol === 'https:' ? `needs "${url.host}" in the manifest’s cdn` : `must be loaded over https`;
  }
  return `is on no host the policy admits (the version’s own files, the SDK and the manifest’s cdn: ${CDN_HOSTS.join(' or ')})`;
}

function scriptSourceWarnings(analysis: FileAnalysis, cdn: readonly string[]): Warning[] {
  const refused = new Map<string, string>();
  for (const source of analysis.scriptSources) {
    if (refused.has(source)) continue;
    const why = refusal(source, cdn);
    if (why !== undefined) refused.set(source, why);
  }
  if (refused.size === 0) return [];
  const shown = [...refused].slice(0, SHOWN_SOURCES).map(([source, why]) => `${quoted(source)} ${why}`);
  const more = refused.size > SHOWN_SOURCES ? `; and ${refused.size - SHOWN_SOURCES} more` : '';
  return [
    {
      path: contentPath(analysis),
      code: 'script_source_blocked',
      message: `${analysis.file.path} loads scripts the page's Content-Security-Policy will block: ${shown.join('; ')}${more}`,
    },
  ];
}

/** Where the SDK reference leads from a page on `origin`, when the policy refuses it there. */
function refusedSdkAddress(reference: string, hosting: PageHosting): string | undefined {
  for (const origin of hosting.pageOrigins) {
    const url = parseUrl(reference, origin);
    if (url !== undefined && !url.href.startsWith(hosting.sdkBase)) return url.href;
  }
  return undefined;
}

function sdkHostWarnings(analysis: FileAnalysis, hosting: PageHosting): Warning[] {
  for (const reference of analysis.references) {
    const sdk = sdkOfReference(reference);
    if (sdk?.sdk === undefined) continue;
    const address = refusedSdkAddress(reference, hosting);
    if (address === undefined) continue;
    const resolved = address === reference ? '' : ` (${quoted(address)} from the app’s pages)`;
    return [
      {
        path: contentPath(analysis),
        code: 'sdk_host_blocked',
        message:
          `${analysis.file.path} loads the SDK from ${quoted(reference)}${resolved}; the page's Content-Security-Policy admits it ` +
          `only from this service: write ${hosting.sdkBase}${sdk.file}`,
      },
    ];
  }
  return [];
}

export function contentPolicyWarnings(analyses: readonly FileAnalysis[], cdn: readonly string[], hosting?: PageHosting): Warning[] {
  return analyses.flatMap((analysis) => [
    ...inlineWarnings(analysis),
    ...scriptSourceWarnings(analysis, cdn),
    ...(hosting ? sdkHostWarnings(analysis, hosting) : []),
  ]);
}
