import { z } from 'zod';
import {
  createBranch,
  createProposal,
  type Decision,
  decideProposal,
  getBranch,
  listBranches,
  listProposals,
} from '../../../domain/ontology/index.ts';
import { CellId } from '../../../schemas/identity.ts';
import { Branch, BranchName, Proposal, ProposalId } from '../../../schemas/ontology-actions.ts';
import { defineRoute } from '../../http/route.ts';

// Branches and proposals of a namespace's definitions (spec "Branches"). Developers, agent
// authors included, create branches, write to them (`?branch=` on the definition routes) and
// propose them; approving, rejecting and merging accept only a human web login.

const NamespaceParams = z.strictObject({ namespace: CellId });
const BranchParams = NamespaceParams.extend({ branch: BranchName });
const ERRORS = ['unauthorized', 'invalid_session', 'forbidden', 'invalid_path', 'organization_not_found', 'ontology_not_found'] as const;

export const createBranchRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/semantic/{namespace}/branches',
  operationId: 'createBranch',
  summary: 'Create a branch of the namespace’s definitions',
  description: 'A branch becomes INACTIVE after 35 days without activity (a write or a proposal) and is deleted 7 days later.',
  tags: ['semantic'],
  auth: 'credential',
  write: true,
  params: NamespaceParams,
  body: z.strictObject({ name: BranchName }),
  response: { status: 201, description: 'The branch.', schema: Branch },
  errors: [...ERRORS, 'invalid_payload', 'conflict'],
  handler: async ({ deps, db, principal, params, body }) => ({
    data: await createBranch({ db, clock: deps.clock }, principal, params.namespace, body.name),
  }),
});

export const listBranchesRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/semantic/{namespace}/branches',
  operationId: 'listBranches',
  summary: 'The namespace’s branches, with their pending writes',
  tags: ['semantic'],
  auth: 'credential',
  params: NamespaceParams,
  response: { status: 200, description: 'By name.', schema: z.object({ data: z.array(Branch) }) },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { data: await listBranches(deps, principal, params.namespace) } }),
});

export const getBranchRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/semantic/{namespace}/branches/{branch}',
  operationId: 'getBranch',
  summary: 'One branch and its pending writes',
  tags: ['semantic'],
  auth: 'credential',
  params: BranchParams,
  response: { status: 200, description: 'The branch.', schema: Branch },
  errors: [...ERRORS, 'branch_not_found'],
  handler: async ({ deps, principal, params }) => ({ data: await getBranch(deps, principal, params.namespace, params.branch) }),
});

export const createProposalRoute = defineRoute({
  method: 'post',
  path: '/api/v1/developer/semantic/{namespace}/branches/{branch}/proposals',
  operationId: 'createProposal',
  summary: 'Propose merging a branch into the main definition',
  tags: ['semantic'],
  auth: 'credential',
  write: true,
  params: BranchParams,
  body: z.strictObject({ title: z.string().min(1).max(200) }),
  response: { status: 201, description: 'The proposal, OPEN.', schema: Proposal },
  errors: [...ERRORS, 'invalid_payload', 'branch_not_found', 'conflict'],
  handler: async ({ deps, db, principal, params, body }) => ({
    data: await createProposal({ db, clock: deps.clock }, principal, params.namespace, params.branch, body.title),
  }),
});

export const listProposalsRoute = defineRoute({
  method: 'get',
  path: '/api/v1/developer/semantic/{namespace}/proposals',
  operationId: 'listProposals',
  summary: 'The namespace’s proposals, newest first',
  tags: ['semantic'],
  auth: 'credential',
  params: NamespaceParams,
  response: { status: 200, description: 'Newest first.', schema: z.object({ data: z.array(Proposal) }) },
  errors: [...ERRORS],
  handler: async ({ deps, principal, params }) => ({ data: { data: await listProposals(deps, principal, params.namespace) } }),
});

const decisionRoute = (decision: Decision, summary: string, description: string) =>
  defineRoute({
    method: 'post',
    path: `/api/v1/developer/semantic/{namespace}/proposals/{proposalId}/${decision}`,
    operationId: `${decision}Proposal`,
    summary,
    description: `${description} Only a human web login (a developer’s session) is accepted: keys get 403.`,
    tags: ['semantic'],
    auth: 'credential',
    write: true,
    params: NamespaceParams.extend({ proposalId: ProposalId }),
    response: {
      status: 200,
      description: 'The proposal; a merge also lists what each write did.',
      schema: Proposal.extend({ merged: z.array(z.unknown()).optional() }),
    },
    errors: [...ERRORS, 'proposal_not_found', 'conflict', 'definition_invalid', 'definition_breaking_change'],
    handler: async ({ deps, db, principal, params }) => ({
      data: await decideProposal({ db, clock: deps.clock }, principal, params.namespace, params.proposalId, decision),
    }),
  });

export const approveProposalRoute = decisionRoute('approve', 'Approve a proposal', 'OPEN → APPROVED.');
export const rejectProposalRoute = decisionRoute('reject', 'Reject a proposal', 'OPEN or APPROVED → REJECTED.');
export const mergeProposalRoute = decisionRoute(
  'merge',
  'Merge an approved proposal into the main definition',
  'APPROVED → MERGED: the branch’s writes are applied in order, all or none (each checked as a direct definition).',
);

export const ontologyBranchRoutes = [
  createBranchRoute,
  listBranchesRoute,
  getBranchRoute,
  createProposalRoute,
  listProposalsRoute,
  approveProposalRoute,
  rejectProposalRoute,
  mergeProposalRoute,
];
