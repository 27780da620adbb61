// Formatting helpers for estimates shown to users. Bytes use decimal units (1 GB = 1e9 bytes),
// as the ZeRO paper's figures do (Ψ = 7.5B → 120 GB); params use K/M/B/T; seconds use ns…s.

function scaled(value: number, units: readonly [number, string][], digits: number, sep: string): string {
  const abs = Math.abs(value);
  for (const [factor, unit] of units) {
    if (abs >= factor) return `${(value / factor).toFixed(digits)}${sep}${unit}`;
  }
  const [factor, unit] = units[units.length - 1];
  return `${(value / factor).toFixed(digits)}${sep}${unit}`;
}

const BYTE_UNITS: readonly [number, string][] = [
  [1e12, 'TB'],
  [1e9, 'GB'],
  [1e6, 'MB'],
  [1e3, 'kB'],
];

/** Bytes in decimal units with one decimal: 2e9 → "2.0 GB", 31_406_250_000 → "31.4 GB", 512 → "512 B". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '? B';
  if (Math.abs(bytes) < 1e3) return `${Math.round(bytes)} B`;
  return scaled(bytes, BYTE_UNITS, 1, ' ');
}

/** Parameter counts: 124_439_808 → "124.4M", 6_738_415_616 → "6.7B", 950 → "950". */
export function formatParams(count: number): string {
  if (!Number.isFinite(count)) return '?';
  if (Math.abs(count) < 1e3) return `${Math.round(count)}`;
  return scaled(
    count,
    [
      [1e12, 'T'],
      [1e9, 'B'],
      [1e6, 'M'],
      [1e3, 'K'],
    ],
    1,
    '',
  );
}

/** Seconds: 0.0123 → "12.3 ms", 4.5e-5 → "45.0 µs", 2 → "2.0 s"; null → "n/a". */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'n/a';
  if (seconds === 0) return '0 s';
  return scaled(
    seconds,
    [
      [1, 's'],
      [1e-3, 'ms'],
      [1e-6, 'µs'],
      [1e-9, 'ns'],
    ],
    1,
    ' ',
  );
}
