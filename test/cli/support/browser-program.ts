import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A `BROWSER` program that writes down the address it was given: the `open` package's xdg-open
 * runs it when no desktop environment is detected, as on a machine without one.
 */
export async function fakeBrowser(dir: string, record: string): Promise<string> {
  const program = path.join(dir, 'browser.sh');
  await writeFile(program, `#!/bin/sh\necho "$1" >> '${record}'\n`, { mode: 0o700 });
  return program;
}
