/** Runs `work` while sampling this process's RSS every 20 ms; answers how far it rose above the start. */
export async function rssGrowthDuring(work: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - before;
}

/**
 * Runs `work` while sampling this thread's own memory (V8 heap plus the buffers it holds) every
 * 5 ms; answers how far it rose above the start. Other threads' heaps are not counted.
 */
export async function threadMemoryGrowthDuring(work: () => Promise<void>): Promise<number> {
  const own = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = own();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, own());
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - before;
}
