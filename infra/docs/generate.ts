// `npm run docs`: rewrites the generated sections of docs/ (see generated-docs.ts).
import { writeFileSync } from 'node:fs';
import { generatedFiles, rootPath } from './generated-docs.ts';

for (const { file, committed, expected } of generatedFiles()) {
  if (committed === expected) {
    console.log(`up to date: ${file}`);
    continue;
  }
  writeFileSync(rootPath(file), expected);
  console.log(`wrote ${file}`);
}
