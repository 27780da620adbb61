// A fixed allocation-heavy workload the benchmark times at its start and end. On a shared
// VM the same code runs 20-30 % slower in some hours; this figure says how fast the machine
// was during a run, so two runs' rows can be compared.
import { median, nowMs, round } from './stats';

/** The median milliseconds of three runs of the reference workload (the first also warms the JIT up). */
export function referenceLoopMs(): number {
  const times = [0, 1, 2].map(() => {
    const start = nowMs();
    referenceWorkload();
    return nowMs() - start;
  });
  return round(median(times), 0);
}

/** Objects, strings, a sort and a map, always the same. */
function referenceWorkload(): void {
  const byKey = new Map<string, number>();
  let checksum = 0;
  for (let pass = 0; pass < 8; pass++) {
    const items: { key: number; label: string }[] = [];
    for (let i = 0; i < 200_000; i++) items.push({ key: i, label: String(i * 7) });
    items.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    for (const item of items) byKey.set(item.label, item.key);
    checksum += byKey.size;
    byKey.clear();
  }
  if (checksum !== 8 * 200_000) throw new Error('reference loop lost entries');
}
