import { parseSync, loadModule } from 'libpg-query';
await loadModule();
const ok = (q) => { try { return JSON.stringify(parseSync(q)).length; } catch (e) { return e.constructor.name + ':' + e.message.slice(0,40); } };
const deep = (n) => 'SELECT ' + Array.from({length: n}, () => '1').join('+');
console.log('before', ok(deep(8000)), process.memoryUsage().rss/1e6|0);
for (let i = 0; i < 200; i++) ok(deep(12000));
console.log('after 200 failures', ok(deep(8000)), ok('SELECT 1'), process.memoryUsage().rss/1e6|0);
for (let i = 0; i < 200; i++) ok(deep(12000));
console.log('after 400 failures', ok(deep(8000)), ok('SELECT 1'), process.memoryUsage().rss/1e6|0);
