// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { type BeginRunInput, type BegunRun, beginAutomationRun } from './begin-automation-run.ts';
export { createAutomation } from './create-automation.ts';
export { deleteAutomation } from './delete-automation.ts';
export { dryRunAutomation } from './dry-run-automation.ts';
export { finishAutomationRun, recordFailedEffect } from './finish-automation-run.ts';
export { getAutomation, listAutomationRuns, listAutomations } from './list-automations.ts';
export { type EffectDeps, runAutomationEffect } from './run-automation-effect.ts';
export { setAutomationEnabled } from './set-automation-enabled.ts';
export { automationsWatching, automationTemporal, enabledAutomationIds } from './temporal.ts';
export { type FiredTrigger, type TickPage, triggerAutomation } from './trigger-automation.ts';
export { updateAutomation } from './update-automation.ts';
