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
