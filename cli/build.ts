// `npm run build -w @svc/cli` (and `npm pack`, through prepack): the CLI as one JavaScript file,
// dist/svc.js (run by the package's bin, svc.mjs), with every dependency and the shared schemas/
// inside, for Node 20.19 and later.
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import versionFile from '../version.json' with { type: 'json' };
import cliPackage from './package.json' with { type: 'json' };

// version.json is the one version of API, CLI and SDK; the package only repeats it for npm.
if (cliPackage.version !== versionFile.version) {
  throw new Error(`cli/package.json has version ${cliPackage.version}, version.json ${versionFile.version}: make them equal`);
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

await build({
  input: here('main.ts'),
  platform: 'node',
  // The package's `engines`: syntax newer than Node 20 is lowered (node: APIs are not polyfilled).
  transform: { target: 'node20.19' },
  output: { file: here('dist/svc.js'), format: 'esm', codeSplitting: false },
});
