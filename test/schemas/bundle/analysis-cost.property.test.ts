// Property: every analyser of uploaded content takes time linear in its input. Inputs are built
// from what backtracking patterns choke on: an opener (`function`, `url(`, `<a `, `name:`)
// followed by a long run of one character and a terminator that does not come. A pattern that
// goes quadratic or worse on some arrangement overruns the per-character budget. fast-check
// prints the seed and the input of a failure so it can be replayed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cssReferences } from '../../../schemas/bundle/css.ts';
import { decodeContent } from '../../../schemas/bundle/decode.ts';
import { parseFrontmatter } from '../../../schemas/bundle/frontmatter.ts';
import { parseHtml } from '../../../schemas/bundle/html.ts';
import { scanJs } from '../../../schemas/bundle/js-lexer.ts';
import { checkBundlePath } from '../../../schemas/bundle/paths.ts';
import { PollingDetector } from '../../../schemas/bundle/polling.ts';
import { sdkOfReference } from '../../../schemas/bundle/sdk-usage.ts';
import { policyWarnings } from './fixtures.ts';

// Linear analysers take well under 1 µs per character; a quadratic one on 30,000 characters
// takes seconds. The fastest of three tries counts, so a GC pause or a busy machine does not
// fail a linear analyser, while a quadratic one is slow every time.
const BASE_MS = 250;
const TRIES = 3;
const MS_PER_CHARACTER = 0.002;

const FRAGMENTS = [
  'function',
  'function*',
  'async',
  'const a =',
  '=>',
  '(',
  ')',
  '{',
  '}',
  '/*',
  '*/',
  '//',
  '"',
  "'",
  '`',
  '${',
  '\\',
  'setTimeout(',
  'url(',
  '@import',
  '<script>',
  '</script>',
  '<style>',
  '<a ',
  '=',
  '>',
  '---\n',
  'name:',
  '\u2028',
  '\uff0e',
  '/developer/sdk/v1/',
  '<script src=',
  '<script type=',
  ' onclick=',
  'javascript:',
  'import(',
  ' from ',
  '//',
];
const RUNS = [' ', '\t', '\n', 'x', '(', '/', '"', "'", '=', 'a:', '<a', 'url('];

const piece = fc.oneof(
  fc.constantFrom(...FRAGMENTS),
  fc.tuple(fc.constantFrom(...RUNS), fc.integer({ min: 1000, max: 30_000 })).map(([run, count]) => run.repeat(count)),
);
const adversarial = fc.array(piece, { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join(''));

const ANALYSERS: [string, (input: string) => unknown][] = [
  [
    // The polling detector looks for re-arming functions only in files that fetch data.
    'lexer and polling detection',
    (input) => {
      const polling = new PollingDetector();
      scanJs(`fetch(x);\n${input}`, (token) => polling.push(token));
      return polling.polls;
    },
  ],
  ['html', parseHtml],
  ['page policy warnings', (input) => policyWarnings('index.html', input)],
  ['script policy warnings', (input) => policyWarnings('app.js', input)],
  ['css', cssReferences],
  ['frontmatter', (input) => parseFrontmatter(`---\n${input}\n---\nbody`)],
  ['sdk references', sdkOfReference],
  ['paths', checkBundlePath],
  ['base64', (input) => decodeContent('base64', input)],
];

describe('analysis cost (property)', () => {
  it('every analyser stays within a per-character time budget on adversarial input', () => {
    fc.assert(
      fc.property(adversarial, (input) => {
        const budget = BASE_MS + MS_PER_CHARACTER * input.length;
        for (const [name, analyse] of ANALYSERS) {
          let fastest = Number.POSITIVE_INFINITY;
          for (let i = 0; i < TRIES && fastest >= budget; i++) {
            const started = performance.now();
            analyse(input);
            fastest = Math.min(fastest, performance.now() - started);
          }
          expect(fastest, `${name} on ${input.length} characters`).toBeLessThan(budget);
        }
      }),
      // Shrinking would rerun slow inputs many times; the failing input itself is reported.
      { numRuns: 200, endOnFailure: true },
    );
  });
});
