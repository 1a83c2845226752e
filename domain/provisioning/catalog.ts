// The spec's table of the ten executive folders and their agent roles, and the names and
// texts derived from it. One table serves the folders step, the profiles step and the status.

export const EXECUTIVE_ROLES = [
  { folder: '01_executive', role: 'ceo', duties: 'direction, strategy, final decisions' },
  { folder: '02_information', role: 'cio', duties: 'information assets, knowledge, data governance' },
  { folder: '03_finance', role: 'cfo', duties: 'finance, cost, pricing, budget, usage' },
  { folder: '04_product', role: 'cpo', duties: 'product, roadmap, experience, requirements' },
  { folder: '05_technology', role: 'cto', duties: 'architecture, back end and API, cloud, security' },
  { folder: '06_operations', role: 'coo', duties: 'delivery, procedures, deployment, operations' },
  { folder: '07_human_resources', role: 'cho', duties: 'roles, hiring, training, organization' },
  { folder: '08_legal', role: 'clo', duties: 'compliance, risk, contracts' },
  { folder: '09_marketing', role: 'cmo', duties: 'brand, content, website, narrative' },
  { folder: '10_sales', role: 'cso', duties: 'sales, customers, pipeline, partnerships' },
] as const;

export type ExecutiveRole = (typeof EXECUTIVE_ROLES)[number];

/** Where profiles live under the company root: `<root>/agents/<companyKey>-<role>/`. */
export const AGENTS_FOLDER = 'agents';
export const DESCRIPTION_FILE = 'description.md';
export const LOG_FOLDER = 'logs';

export const profileName = (companyKey: string, role: string) => `${companyKey}-${role}`;

export interface ProfileText {
  name: string;
  nameEn: string;
  nameZh: string;
  companyKey: string;
  cellId: string;
  duties: string;
  folderPath: string;
  profilePath: string;
  logPath: string;
}

/** The description file: three blocks (duties, tool paths, business background), metadata only. */
export function describeProfile(p: ProfileText): string {
  return [
    `# ${p.name}`,
    '',
    '## Duties',
    '',
    `Does: ${p.duties}, for ${p.nameEn}.`,
    `Does not: act outside its folder, decide for another role, or keep credentials, keys, tokens, connection strings or customer files.`,
    '',
    '## Tool paths',
    '',
    `- Company folder: ${p.folderPath}`,
    `- Profile path: ${p.profilePath}`,
    `- Log path: ${p.logPath}`,
    '',
    '## Business background',
    '',
    `${p.nameEn} (${p.nameZh}), company key ${p.companyKey}, cell ${p.cellId}: a live company cell holding only metadata and empty folders.`,
    '',
  ].join('\n');
}
