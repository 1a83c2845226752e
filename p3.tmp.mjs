import { parseSync, loadModule } from 'libpg-query';
await loadModule();
const ok = (q) => { const c = process.cpuUsage(); let r; try { parseSync(q); r= 'ok'; } catch (e) { r= e.constructor.name + ':' + e.message.slice(0,40); } return r + ' cpu ' + (process.cpuUsage(c).user/1000).toFixed(0) + 'ms'; };
const n = Number(process.argv[2]);
console.log(n, ok('SELECT 1'), ok('SELECT ' + Array.from({length: n}, () => '1').join('+')));
console.log(n, ok('SELECT ' + Array.from({length: n}, () => '1').join('+')));
