// Symbolic tensor sizes and strides: a size is a monomial (a rational coefficient times
// named atoms with integer exponents), so `B * T`, `C // n_head` and `n_head * (C // n_head)`
// compare exactly. Comparisons assume every atom is a size greater than 1 ("generic").

/** A monomial: `coef × Π atom^exponent`. Atoms are source spellings (`B`, `self.n_head`). */
export interface Size {
  readonly coef: number;
  readonly atoms: ReadonlyMap<string, number>;
}

/** A size known exactly. */
export function num(value: number): Size {
  return { coef: value, atoms: new Map() };
}

/** A size named by a symbol. */
export function atom(name: string): Size {
  return { coef: 1, atoms: new Map([[name, 1]]) };
}

/** The product of two sizes (a zero coefficient drops the atoms: 0·T is 0). */
export function mul(a: Size, b: Size): Size {
  const coef = a.coef * b.coef;
  if (coef === 0) return num(0);
  const atoms = new Map(a.atoms);
  for (const [name, exponent] of b.atoms) {
    const total = (atoms.get(name) ?? 0) + exponent;
    if (total === 0) atoms.delete(name);
    else atoms.set(name, total);
  }
  return { coef, atoms };
}

/** `a / b` as a monomial (exponents may go negative). */
export function div(a: Size, b: Size): Size {
  const inverse = new Map<string, number>();
  for (const [name, exponent] of b.atoms) inverse.set(name, -exponent);
  return mul(a, { coef: 1 / b.coef, atoms: inverse });
}

/** The product of a list of sizes. */
export function product(sizes: readonly Size[]): Size {
  return sizes.reduce(mul, num(1));
}

/** Whether the size is a plain number. */
export function isConcrete(size: Size): boolean {
  return size.atoms.size === 0;
}

/** Whether two sizes are the same monomial. */
export function sameSize(a: Size, b: Size): boolean {
  if (Math.abs(a.coef - b.coef) > 1e-9 || a.atoms.size !== b.atoms.size) return false;
  for (const [name, exponent] of a.atoms) if (b.atoms.get(name) !== exponent) return false;
  return true;
}

/**
 * Orders two sizes for every assignment of the atoms to integers ≥ 2: `lt`/`gt` when one is
 * the other times a product of atoms (or an integer > 1), `eq` when equal, `unknown` otherwise.
 */
export function compareSizes(a: Size, b: Size): 'lt' | 'eq' | 'gt' | 'unknown' {
  if (sameSize(a, b)) return 'eq';
  if (isConcrete(a) && isConcrete(b)) return a.coef < b.coef ? 'lt' : 'gt';
  if (a.coef === 0) return 'lt';
  if (b.coef === 0) return 'gt';
  const ratio = div(b, a);
  if (grows(ratio)) return 'lt';
  if (grows(div(a, b))) return 'gt';
  return 'unknown';
}

/** Whether a ratio is > 1 for every assignment of its atoms to integers ≥ 2. */
function grows(ratio: Size): boolean {
  let exponents = 0;
  for (const exponent of ratio.atoms.values()) {
    if (exponent < 0) return false;
    exponents += exponent;
  }
  // NOTE: 2^k · coef > 1 is the smallest the product can be with every atom ≥ 2.
  return ratio.coef > 0 && ratio.coef * 2 ** exponents > 1 + 1e-9;
}

/** Whether the size is exactly 1 (a size-1 dim). */
export function isOne(size: Size): boolean {
  return isConcrete(size) && size.coef === 1;
}

/** A readable spelling: `4`, `B·T`, `C/n_head`. */
export function formatSize(size: Size): string {
  const top: string[] = [];
  const bottom: string[] = [];
  for (const [name, exponent] of size.atoms) {
    const part = Math.abs(exponent) === 1 ? name : `${name}^${Math.abs(exponent)}`;
    (exponent > 0 ? top : bottom).push(part);
  }
  if (size.coef !== 1 || top.length === 0) top.unshift(formatNumber(size.coef));
  const numerator = top.join('·');
  return bottom.length ? `${numerator}/${bottom.join('·')}` : numerator;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(3).replace(/0+$/, '');
}
