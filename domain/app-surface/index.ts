// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { describeAbout } from './describe-about.ts';
export { describeCard, describeCardPage } from './describe-card.ts';
export { appApisOf, listAppApis } from './list-app-apis.ts';
export { listRegistry } from './list-registry.ts';
export { runApi } from './run-api.ts';
