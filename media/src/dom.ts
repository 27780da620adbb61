// DOM and formatting helpers for the benchmark webview. Elements are built with the DOM
// API (never innerHTML with data) and styled only by classes from media/panel.css.

type Child = Node | string | null | undefined | false;

/** Creates an element with attributes (never `style`) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'style') throw new Error('inline styles are not allowed by the CSP');
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children, skipping empty ones. */
export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** Milliseconds with a sensible precision (µs below 1 ms). */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  return `${ms.toPrecision(4)} ms`;
}

/** Bytes in binary units. */
export function fmtBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toPrecision(3)} ${units[i]}`;
}

/** A number with SI suffix (k, M, G, T), for parameter and FLOP counts. */
export function fmtSi(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const units = ['', 'k', 'M', 'G', 'T', 'P'];
  let v = value;
  let i = 0;
  while (Math.abs(v) >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? String(Math.round(v * 100) / 100) : v.toPrecision(3)}${units[i]}`;
}

/** A plain number with up to `digits` significant digits, or a dash. */
export function fmtNum(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined) return '—';
  return Number(value.toPrecision(digits)).toString();
}

/** Reads a CSS custom property from the theme, with a fallback for pages without one. */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}
