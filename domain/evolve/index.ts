// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { applyProposal } from './apply-proposal.ts';
export { compileImprovements } from './compile-improvements.ts';
export { createProposal } from './create-proposal.ts';
export { deleteImprovement } from './delete-improvement.ts';
export { getProposal } from './get-proposal.ts';
export { listImprovements } from './list-improvements.ts';
export { listProposals } from './list-proposals.ts';
export { renderOverlay, resolveOverlay } from './overlay.ts';
export { overlayFor } from './overlay-cache.ts';
export { readEvidence } from './read-evidence.ts';
export { readOverlay } from './read-overlay.ts';
export { rejectProposal } from './reject-proposal.ts';
export { suggestProposals } from './suggest-proposals.ts';
