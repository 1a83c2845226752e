// `npm run build`: the workflow bundle production workers load instead of bundling at start.
// Forked by workflowBundle (workflow-bundle.ts), it sends the bundle to its parent instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflows, PREBUILT_BUNDLE } from './workflow-bundle.ts';

const { code } = await bundleWorkflows();
const send = process.send?.bind(process);
if (send) {
  await new Promise((resolve) => send(code, resolve));
  process.disconnect();
} else {
  mkdirSync(dirname(PREBUILT_BUNDLE), { recursive: true });
  writeFileSync(PREBUILT_BUNDLE, code);
  console.log(`wrote ${PREBUILT_BUNDLE} (${(code.length / 1024).toFixed(0)} KiB)`);
}
