import { scanJs } from './schemas/bundle/js-lexer.ts';
import { PollingDetector } from './schemas/bundle/polling.ts';

const N = 3 * 1024 * 1024;
for (const [label, src] of [
  ['(((', '('.repeat(N)],
  ['a;', 'a;'.repeat(N / 2)],
  ['a(', 'a('.repeat(N / 2)],
] as const) {
  let t = performance.now();
  let n = 0;
  scanJs(src, () => {
    n++;
  });
  const lex = performance.now() - t;
  t = performance.now();
  const d = new PollingDetector();
  scanJs(src, (tok) => d.push(tok));
  console.log(label, n, 'lex', lex.toFixed(0), 'lex+poll', (performance.now() - t).toFixed(0));
}
