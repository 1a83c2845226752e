import { z } from 'zod';
import { checkWorkflow } from '../../domain/app-workflows/index.ts';
import { checkUpload, uploadVersion } from '../../domain/apps/index.ts';
import {
  applyProposal,
  compileImprovements,
  createProposal,
  deleteImprovement,
  getProposal,
  listImprovements,
  listProposals,
  readEvidence,
  readOverlay,
  rejectProposal,
  suggestProposals,
} from '../../domain/evolve/index.ts';
import { UploadedVersion } from '../../schemas/apps.ts';
import {
  CompileInput,
  CreateProposalInput,
  EVOLVE_LIMITS,
  EvidenceQuery,
  EvidenceView,
  ImprovementId,
  ImprovementView,
  ListImprovementsQuery,
  ListProposalsQuery,
  Namespace,
  OverlayView,
  ProposalId,
  ProposalView,
  Slug,
  SlugBody,
  SuggestResult,
} from '../../schemas/evolve.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { legacyEvolveRoutes } from './legacy.ts';

// Evolve (spec G): evidence from the app log, proposals (by developers, agent authors, an app's
// page for its own visitor, or `suggest`), applied by a developer's web login into improvements,
// and the overlay each visitor's page gets. Each route also answers on its legacy paths (legacy.ts).

export const EVOLVE_BASE = '/api/v1/developer/evolve/{namespace}';

const NamespaceParams = z.strictObject({ namespace: Namespace });
const ProposalParams = NamespaceParams.extend({ id: ProposalId });
const ImprovementParams = NamespaceParams.extend({ id: ImprovementId });
const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'invalid_payload', 'app_not_found'] as const;

/** The legacy per-app paths name the app in the path: a proposal or improvement must then be of that app. */
const slugOf = (params: object) => (params as { slug?: string }).slug;

const evidenceRoute = defineRoute({
  method: 'get',
  path: `${EVOLVE_BASE}/evidence`,
  operationId: 'getEvolveEvidence',
  summary: 'What the app log says about an app’s declared slots and tokens (developers)',
  description:
    'Feedback still to handle (open and planned; newest first, paged with `cursor`), error classes and usage names of the ' +
    'last `days` days, and per declared slot its tokens, feedback to handle and usage. A log name is about a slot when it is ' +
    'the slot’s name or alias or a token’s name, alone or followed by `.`, `:` or `/` (feedback topic `header`, usage `header.click`).',
  tags: ['evolve'],
  auth: 'credential',
  params: NamespaceParams,
  query: EvidenceQuery,
  response: { status: 200, description: 'The evidence.', schema: EvidenceView },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params, query }) => ({ data: await readEvidence(deps, principal, params.namespace, query) }),
});

const suggestRoute = defineRoute({
  method: 'post',
  path: `${EVOLVE_BASE}/suggest`,
  operationId: 'suggestEvolveProposals',
  summary: 'Turn feedback on declared slots into proposals through the model provider (developers)',
  description:
    'For each declared slot with tokens and feedback still to handle that no open proposal answers, the model provider of ' +
    'workflow `model` steps (the deterministic local one by default) places the slot’s tokens within their ranges; each ' +
    'proposal changes only those tokens and names the feedback it answers. Proposals stay open until a developer applies them.',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: NamespaceParams,
  body: SlugBody,
  response: { status: 201, description: 'The new proposals (possibly none) and the provider’s name.', schema: SuggestResult },
  errors: [...ERRORS, 'quota_exhausted'],
  handler: async ({ deps, db, principal, params, body }) => ({
    data: await suggestProposals({ db, clock: deps.clock, models: deps.models }, principal, params.namespace, body.slug),
  }),
});

const createProposalRoute = defineRoute({
  method: 'post',
  path: `${EVOLVE_BASE}/proposals`,
  operationId: 'createEvolveProposal',
  summary: 'Propose changes of declared tokens and slots, company-wide or for one person',
  description:
    'Changes: `token` (a declared CSS custom property, `value` within its min and max) and `slot` (a declared slot’s `text`, ' +
    '`hidden` or `order`); never scripts or markup. `evidence` names the app log events it answers. Developers (an agent author ' +
    'through `x-author` too) propose for everyone or for one `account`; an app’s page (its ticket) only `personal` for its own ' +
    'visitor. A proposal is applied by a developer’s web login.',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: NamespaceParams,
  body: CreateProposalInput,
  response: { status: 201, description: 'The open proposal.', schema: ProposalView },
  errors: [...ERRORS],
  handler: async ({ deps, db, principal, params, body }) => ({
    status: 201,
    data: await createProposal({ db, clock: deps.clock }, principal, params.namespace, body),
  }),
});

const listProposalsRoute = defineRoute({
  method: 'get',
  path: `${EVOLVE_BASE}/proposals`,
  operationId: 'listEvolveProposals',
  summary: 'An app’s proposals, newest first (developers)',
  tags: ['evolve'],
  auth: 'credential',
  params: NamespaceParams,
  query: ListProposalsQuery,
  response: {
    status: 200,
    description: 'A page of proposals; pass `nextCursor` back as `cursor`.',
    schema: z.object({ proposals: z.array(ProposalView), nextCursor: z.string().nullable() }),
  },
  errors: [...ERRORS],
  handler: async ({ db, principal, params, query }) => ({ data: await listProposals(db, principal, params.namespace, query) }),
});

const getProposalRoute = defineRoute({
  method: 'get',
  path: `${EVOLVE_BASE}/proposals/{id}`,
  operationId: 'getEvolveProposal',
  summary: 'One proposal (developers)',
  tags: ['evolve'],
  auth: 'credential',
  params: ProposalParams,
  response: { status: 200, description: 'The proposal.', schema: ProposalView },
  errors: [...ERRORS, 'proposal_not_found'],
  handler: async ({ db, principal, params }) => ({
    data: await getProposal(db, principal, { namespace: params.namespace, id: params.id, slug: slugOf(params) }),
  }),
});

const applyProposalRoute = defineRoute({
  method: 'post',
  path: `${EVOLVE_BASE}/proposals/{id}/apply`,
  operationId: 'applyEvolveProposal',
  summary: 'Apply an open proposal: it becomes an improvement (a developer’s web login only)',
  description:
    `At most ${EVOLVE_LIMITS.company} company-wide and ${EVOLVE_LIMITS.personal} personal (per person) improvements per app: ` +
    'past them 409 improvement_limit_reached. Keys (an agent author’s included) are refused: applying accepts only a human ' +
    'web login. The feedback the proposal names becomes `done`; the next open of the app shows the change, without a redeploy.',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: ProposalParams,
  response: { status: 200, description: 'The applied proposal, with its improvement’s id.', schema: ProposalView },
  errors: [...ERRORS, 'proposal_not_found', 'conflict', 'improvement_limit_reached'],
  handler: async ({ deps, db, principal, params }) => ({
    data: await applyProposal({ db, clock: deps.clock }, principal, { namespace: params.namespace, id: params.id, slug: slugOf(params) }),
  }),
});

const rejectProposalRoute = defineRoute({
  method: 'post',
  path: `${EVOLVE_BASE}/proposals/{id}/reject`,
  operationId: 'rejectEvolveProposal',
  summary: 'Reject an open proposal (a developer’s web login only)',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: ProposalParams,
  response: { status: 200, description: 'The rejected proposal.', schema: ProposalView },
  errors: [...ERRORS, 'proposal_not_found', 'conflict'],
  handler: async ({ deps, db, principal, params }) => ({
    data: await rejectProposal({ db, clock: deps.clock }, principal, { namespace: params.namespace, id: params.id, slug: slugOf(params) }),
  }),
});

const listImprovementsRoute = defineRoute({
  method: 'get',
  path: `${EVOLVE_BASE}/improvements`,
  operationId: 'listEvolveImprovements',
  summary: 'An app’s improvements, in the order they apply (developers)',
  tags: ['evolve'],
  auth: 'credential',
  params: NamespaceParams,
  query: ListImprovementsQuery,
  response: {
    status: 200,
    description: 'A page of improvements; pass `nextCursor` back as `cursor`.',
    schema: z.object({ improvements: z.array(ImprovementView), nextCursor: z.string().nullable() }),
  },
  errors: [...ERRORS],
  handler: async ({ db, principal, params, query }) => ({ data: await listImprovements(db, principal, params.namespace, query) }),
});

const deleteImprovementRoute = defineRoute({
  method: 'delete',
  path: `${EVOLVE_BASE}/improvements/{id}`,
  operationId: 'deleteEvolveImprovement',
  summary: 'Remove an improvement: the next open no longer shows it (developers)',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: ImprovementParams,
  response: { status: 200, description: 'The removed improvement.', schema: ImprovementView },
  errors: [...ERRORS, 'improvement_not_found'],
  handler: async ({ db, principal, params }) => ({
    data: await deleteImprovement(db, principal, { namespace: params.namespace, id: params.id, slug: slugOf(params) }),
  }),
});

const overlayRoute = defineRoute({
  method: 'get',
  path: `${EVOLVE_BASE}/apps/{slug}/overlay`,
  operationId: 'getEvolveOverlay',
  summary: 'The improvements that apply to the caller on an app (company-wide plus their own)',
  description:
    'Resolved on the version the caller’s channel shows (a ticket’s channel; production for keys): token values within the ' +
    'version’s declared ranges, slot text, order and visibility; improvements the version has baked in are left out. The ' +
    'service applies the same overlay to the entry page when the app opens.',
  tags: ['evolve'],
  auth: 'credential',
  params: NamespaceParams.extend({ slug: Slug }),
  response: { status: 200, description: 'The overlay.', schema: OverlayView },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: await readOverlay(deps, principal, params.namespace, params.slug) }),
});

const compileRoute = defineRoute({
  method: 'post',
  path: `${EVOLVE_BASE}/compile`,
  operationId: 'compileEvolveImprovements',
  summary: 'Fold the company-wide improvements into a new version (uploaded; then tested and published as usual)',
  description:
    'Takes the app’s production version (else test, else the newest upload), writes its company-wide improvements into its ' +
    'pages (the same CSS and text the overlay gives), lists them in the manifest’s `evolve.baked` and uploads the result as ' +
    '`version`, exactly as an upload of that bundle (a developer key; bundle validation; 409 version_conflict). Publish it ' +
    'through the channels as any version: on it the baked improvements no longer apply at runtime. Nothing to fold: 409 conflict.',
  tags: ['evolve'],
  auth: 'credential',
  write: true,
  params: NamespaceParams,
  body: CompileInput,
  response: { status: 201, description: 'The uploaded version (200: identical content existed).', schema: UploadedVersion },
  errors: [...ERRORS, 'bundle_invalid', 'version_conflict', 'conflict'],
  prepare: async ({ principal, params, body, deps, dryRun }) => {
    const bundle = await compileImprovements(deps, principal, params.namespace, body);
    const address = { namespace: params.namespace, slug: body.slug };
    const store = { db: deps.db, blobs: deps.blobs, dryRun, checkWorkflow, addresses: deps.addresses() };
    return { bundle: await checkUpload(principal, address, bundle, store), notes: bundle.notes };
  },
  async handler({ db, principal, params, body, prepared }) {
    const uploaded = await uploadVersion(
      db,
      principal,
      { namespace: params.namespace, slug: body.slug, notes: prepared.notes },
      prepared.bundle,
    );
    return { status: uploaded.created ? 201 : 200, data: uploaded };
  },
});

/** Where each route names its app on the legacy per-app paths' successor: in the query, the body, or not at all (by id). */
export const EVOLVE_ROUTES: readonly { route: AnyRoute; slugIn: 'query' | 'body' | 'path' | 'id' }[] = [
  { route: evidenceRoute, slugIn: 'query' },
  { route: suggestRoute, slugIn: 'body' },
  { route: createProposalRoute, slugIn: 'body' },
  { route: listProposalsRoute, slugIn: 'query' },
  { route: getProposalRoute, slugIn: 'id' },
  { route: applyProposalRoute, slugIn: 'id' },
  { route: rejectProposalRoute, slugIn: 'id' },
  { route: listImprovementsRoute, slugIn: 'query' },
  { route: deleteImprovementRoute, slugIn: 'id' },
  { route: overlayRoute, slugIn: 'path' },
  { route: compileRoute, slugIn: 'body' },
];

export const evolveRoutes: AnyRoute[] = [...EVOLVE_ROUTES.map((r) => r.route), ...legacyEvolveRoutes(EVOLVE_ROUTES)];
