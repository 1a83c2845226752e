import { z } from 'zod';
import { LogEventId, Namespace, Slug } from './app-log.ts';
import { slotName, VERSION_PATTERN } from './manifest/index.ts';

// Evolve contracts (spec G, Evolve): evidence from the app log, proposals that change only what the
// manifest's `evolve` declares (tokens within [min, max]; the text, order and visibility of
// `data-evolve` regions), improvements (applied proposals) and the overlay a visitor's page gets.
// Shared with the CLI and the browser SDK.

/** Spec Limits: "at most 40 company-wide and 20 personal improvements per app" (personal: per person). */
export const EVOLVE_LIMITS = { company: 40, personal: 20 } as const;

export { Namespace, Slug };
export const ProposalId = z.string().regex(/^evp_[0-9A-Za-z]{10,40}$/, 'must be a proposal id (evp_…)');
export const ImprovementId = z.string().regex(/^evi_[0-9A-Za-z]{10,40}$/, 'must be an improvement id (evi_…)');
export const EvolveScope = z.enum(['company', 'personal']).meta({
  description: '`company`: every visitor of the app; `personal`: one person’s own view (`account`).',
});
export type EvolveScope = z.infer<typeof EvolveScope>;

const TokenName = z.string().regex(/^--[a-z][a-z0-9-]{0,47}$/, 'must be a declared CSS custom property such as --accent-hue');

export const TokenChange = z.strictObject({
  kind: z.literal('token'),
  token: TokenName,
  value: z.number().finite().meta({ description: 'Within the token’s declared min and max (its unit is the manifest’s).' }),
});
export const SlotChange = z
  .strictObject({
    kind: z.literal('slot'),
    slot: slotName.meta({ description: 'A slot the manifest declares (name or alias) in `evolve.slots`.' }),
    text: z.string().max(500).optional().meta({ description: 'Replaces the region’s content with this plain text (never markup).' }),
    hidden: z.boolean().optional(),
    order: z.number().int().min(-100).max(100).optional().meta({ description: 'CSS `order` of the region in its flex or grid container.' }),
  })
  .refine((c) => c.text !== undefined || c.hidden !== undefined || c.order !== undefined, {
    message: 'a slot change sets text, hidden or order',
  });
export const EvolveChange = z.discriminatedUnion('kind', [TokenChange, SlotChange]);
export type EvolveChange = z.infer<typeof EvolveChange>;
const Changes = z.array(EvolveChange).min(1).max(20);

export const CreateProposalInput = z.strictObject({
  slug: Slug,
  title: z.string().min(1).max(120),
  rationale: z.string().max(2000).optional(),
  scope: EvolveScope.default('company'),
  account: z
    .string()
    .regex(/^acc_[0-9A-Za-z]{10,40}$/, 'must be an account id')
    .optional()
    .meta({ description: 'Whose view a personal proposal changes; default the caller. Company-wide proposals have none.' }),
  changes: Changes,
  evidence: z.array(LogEventId).max(20).default([]).meta({ description: 'The app log events (feedback, errors) it answers.' }),
});
export type CreateProposalInput = z.infer<typeof CreateProposalInput>;

export const SlugBody = z.strictObject({ slug: Slug });

const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a cursor from a previous page')
  .optional();
const Limit = z.coerce.number().int().min(1).max(200).default(50);

export const ProposalStatus = z.enum(['open', 'applied', 'rejected']);
export const ListProposalsQuery = z.strictObject({ slug: Slug, status: ProposalStatus.optional(), cursor: Cursor, limit: Limit });
export const ListImprovementsQuery = z.strictObject({ slug: Slug, scope: EvolveScope.optional(), cursor: Cursor, limit: Limit });
export const EvidenceQuery = z.strictObject({
  slug: Slug,
  days: z.coerce.number().int().min(1).max(180).default(30),
  cursor: Cursor,
  limit: Limit,
});
export type ListProposalsQuery = z.infer<typeof ListProposalsQuery>;
export type ListImprovementsQuery = z.infer<typeof ListImprovementsQuery>;
export type EvidenceQuery = z.infer<typeof EvidenceQuery>;

export const AuthorKind = z.enum(['developer', 'agent', 'member', 'suggest']);

export const ProposalView = z
  .object({
    id: z.string(),
    app: z.string(),
    scope: EvolveScope,
    account: z.string().nullable(),
    status: ProposalStatus,
    author: z.object({ kind: AuthorKind, account: z.string(), agent: z.string().nullable() }),
    title: z.string(),
    rationale: z.string().nullable(),
    changes: z.array(EvolveChange),
    evidence: z.array(z.string()),
    createdAt: z.string(),
    decidedBy: z.string().nullable(),
    decidedAt: z.string().nullable(),
    improvement: z.string().nullable(),
  })
  .meta({ id: 'EvolveProposal' });
export type ProposalView = z.infer<typeof ProposalView>;

export const ImprovementView = z
  .object({
    id: z.string(),
    app: z.string(),
    proposal: z.string(),
    scope: EvolveScope,
    account: z.string().nullable(),
    changes: z.array(EvolveChange),
    createdAt: z.string(),
    createdBy: z.string(),
  })
  .meta({ id: 'EvolveImprovement' });
export type ImprovementView = z.infer<typeof ImprovementView>;

export const OverlayView = z
  .object({
    app: z.string(),
    version: z.string(),
    improvements: z.array(z.string()).meta({ description: 'The improvements applied, company-wide first.' }),
    tokens: z.array(z.object({ slot: z.string(), token: z.string(), value: z.number(), unit: z.string() })),
    slots: z.array(
      z.object({ slot: z.string(), text: z.string().optional(), hidden: z.boolean().optional(), order: z.number().optional() }),
    ),
  })
  .meta({ id: 'EvolveOverlay' });
export type OverlayView = z.infer<typeof OverlayView>;

export const EvidenceView = z
  .object({
    app: z.string(),
    days: z.number().int(),
    slots: z.array(
      z.object({
        slot: z.string(),
        tokens: z.array(z.string()),
        openFeedback: z.number().int(),
        usage: z.number().int(),
      }),
    ),
    feedback: z.array(
      z.object({
        id: z.string(),
        at: z.string(),
        topic: z.string(),
        slot: z.string().nullable(),
        rating: z.number().nullable(),
        message: z.string().nullable(),
        status: z.string(),
      }),
    ),
    errors: z.array(z.object({ class: z.string(), count: z.number().int() })),
    usage: z.array(z.object({ name: z.string(), slot: z.string().nullable(), count: z.number().int() })),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'EvolveEvidence' });
export type EvidenceView = z.infer<typeof EvidenceView>;

export const CompileInput = z.strictObject({
  slug: Slug,
  version: z.string().regex(VERSION_PATTERN, 'must be a semantic version such as 1.2.3').meta({
    description: 'The new version’s number (its content differs from every existing version).',
  }),
  notes: z.string().max(2000).optional(),
});
export type CompileInput = z.infer<typeof CompileInput>;

export const SuggestResult = z.object({ proposals: z.array(ProposalView), model: z.string() });
