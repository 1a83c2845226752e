import { type AppTarget, findChannelVersion, pageAddresses } from '../apps/index.ts';
import { findCompany } from '../companies/index.ts';
import type { DomainDeps } from '../deps.ts';
import { PUBLIC_NAMESPACE } from '../policy/index.ts';

/**
 * What the generated pages under an app address show (about, about.md, skills): the version the
 * channel shows now. Readable without login (spec What the service does 9).
 */
export async function describeAppPages(deps: DomainDeps, target: AppTarget) {
  const { app, version } = await findChannelVersion(deps.db, target.namespace, target.slug, target.channel);
  const { manifest } = version;
  const pages = pageAddresses(
    deps.addresses(),
    app.namespace,
    app.slug,
    version.skills.map((s) => s.name),
  )[target.channel];
  return {
    title: manifest.title,
    /** The company's name; null for an official app. */
    owner: app.namespace === PUBLIC_NAMESPACE ? null : (await findCompany(deps.db, app.namespace)).name,
    /** Who the manifest opens it to: the company's members, or (restricted) its developers and the people it is shared with. */
    access: manifest.auth.access,
    sdks: manifest.sdk,
    reads: manifest.semantic.types,
    writes: manifest.semantic.write,
    summary: manifest.summary,
    description: manifest.description ?? '',
    examples: manifest.examples,
    version: version.version,
    hasInterface: manifest.entry !== null,
    pages,
    skills: version.skills.map((s) => ({ name: s.name, description: s.description, content: s.content })),
    apis: manifest.exports.map((e) => ({ name: e.name, title: e.title, description: e.description })),
    mcp: `${deps.addresses().baseUrl}/api/v1/developer/apps/${app.namespace}/${app.slug}/mcp`,
  };
}

export type AppPages = Awaited<ReturnType<typeof describeAppPages>>;

/** The one line a person pastes into an agent. */
export const copyLine = (p: AppPages) => `${p.title}: ${p.summary || p.title} ${p.pages.aboutMarkdown}`;

/** The agent-readable description (`about.md`), ending with the one line to copy. */
export function aboutMarkdown(p: AppPages): string {
  const lines = [`# ${p.title}`, ''];
  if (p.summary) lines.push(p.summary, '');
  if (p.description) lines.push(p.description, '');
  lines.push(`- Address: ${p.pages.address}${p.hasInterface ? ' (sign-in required)' : ' (no interface: skills and APIs only)'}`);
  lines.push(`- Version: ${p.version}`, '');
  if (p.examples.length) lines.push('## Try saying', '', ...p.examples.map((e) => `- ${e}`), '');
  if (p.skills.length) {
    lines.push('## Skills', '', ...p.skills.map((s, i) => `- [${s.name}](${p.pages.skills[i]}): ${s.description}`), '');
  }
  if (p.apis.length) {
    lines.push('## APIs', '', ...p.apis.map((a) => `- \`${a.name}\`: ${a.title}${a.description ? `. ${a.description}` : ''}`), '');
  }
  lines.push(`MCP (streamable HTTP; sign-in through OAuth): ${p.mcp}`, '');
  lines.push('## To copy', '', '```', copyLine(p), '```', '');
  return lines.join('\n');
}
