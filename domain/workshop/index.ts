// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { type AutoRefreshSink, CONNECTION_MS, RECHECK_MS, startAutoRefresh, type WatchedPage, watchModulePage } from './auto-refresh.ts';
export { createModule } from './create-module.ts';
export { deleteModule } from './delete-module.ts';
export { evaluateModulePage } from './evaluate-page.ts';
export { getModule, getModuleVersion } from './get-module.ts';
export { listModules } from './list-modules.ts';
export { listModuleVersions } from './list-versions.ts';
export { publishModuleVersion } from './publish-version.ts';
export { saveModuleVersion } from './save-version.ts';
