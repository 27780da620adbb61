// The cluster picker's decisions, apart from the VS Code UI so tests can run them: which
// rows a step shows (the current value marked and active, ids searchable), and which
// settings a finished walk writes (only those that changed).

/** One row of a picker step. */
export interface ChoiceRow {
  id: string;
  label: string;
  description: string;
}

/** The cluster settings the picker walks through. */
export interface ClusterChoice {
  gpu: string;
  gpusPerNode: number;
  nodes: number;
  intraNodeLink: string;
  interNodeLink: string;
}

/**
 * The rows of one step and the index of the row Enter picks: the current value, marked
 * "(current)". A current value that is not in the list (a typo, a removed custom profile)
 * gets its own row, so walking through the picker never replaces it silently. Ids are in
 * the description, which the picker searches (`matchOnDescription`).
 */
export function pickerRows(
  options: readonly { id: string; name: string; custom?: boolean }[],
  current: string,
): { rows: ChoiceRow[]; activeIndex: number } {
  const rows = options.map((o) => ({
    id: o.id,
    label: o.name,
    description: [o.id, o.custom ? 'custom' : '', o.id === current ? '(current)' : '']
      .filter(Boolean)
      .join(' · '),
  }));
  let activeIndex = rows.findIndex((r) => r.id === current);
  if (activeIndex < 0 && current) {
    rows.unshift({ id: current, label: current, description: `${current} · (current, not a known preset)` });
    activeIndex = 0;
  }
  return { rows, activeIndex: Math.max(0, activeIndex) };
}

/** The settings a finished walk changes, in a stable order; empty when nothing changed. */
export function changedSettings(
  before: ClusterChoice,
  after: ClusterChoice,
): [keyof ClusterChoice, string | number][] {
  const keys: (keyof ClusterChoice)[] = ['gpu', 'gpusPerNode', 'nodes', 'intraNodeLink', 'interNodeLink'];
  return keys.filter((k) => before[k] !== after[k]).map((k) => [k, after[k]]);
}
