// Every pool thread starts here: it lowers its own scheduling priority, then loads its job module.
// The pools run untrusted work (bundles, expressions, SQL text) that may use a core for seconds;
// at the lowest priority it still gets every idle cycle but yields the CPU to the event loop, and
// so to every other company's requests, whenever both want it. On Linux a nice value belongs to
// the thread that sets it, so the event loop keeps its own.
import { constants, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';

try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {
  // A platform that refuses it runs the job at normal priority: slower neighbours, same answers.
}
await import((workerData as { script: string }).script);
