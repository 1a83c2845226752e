// The `svc` command line (package.json `bin`, through svc.mjs). Node 24 runs this file as it is.
import { run } from './program.ts';

process.exitCode = await run(process.argv);
