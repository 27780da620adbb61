// Status-bar cluster profile: shows the resolved `shardlens.cluster.*` label and registers
// `shardlens.selectClusterProfile`, which walks GPU → GPUs per node → nodes → links (Enter
// keeps the row marked "(current)"; typing an id such as `a100-40gb` filters) and writes
// only what changed to the workspace settings. Presets come from the server's estimate module.
import * as vscode from 'vscode';
import { changedSettings, pickerRows, type ChoiceRow } from './cluster-choices';
import {
  listGpus,
  listLinks,
  resolveClusterProfile,
  type ClusterSettings,
  type CustomProfiles,
} from '../../server/src/estimate';

const SECTION = 'shardlens.cluster';
const COMMAND = 'shardlens.selectClusterProfile';

function readSettings(): ClusterSettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  return {
    gpu: c.get<string>('gpu', 'h100-sxm'),
    gpusPerNode: c.get<number>('gpusPerNode', 8),
    nodes: c.get<number>('nodes', 1),
    intraNodeLink: c.get<string>('intraNodeLink', 'nvlink4'),
    interNodeLink: c.get<string>('interNodeLink', 'ib-ndr'),
    customProfiles: c.get<CustomProfiles>('customProfiles', {}),
  };
}

function refresh(item: vscode.StatusBarItem, output?: vscode.LogOutputChannel): void {
  const resolved = resolveClusterProfile(readSettings());
  if (!resolved.ok) output?.warn(`Configuration problem: the cluster profile is invalid: ${resolved.error}`);
  if (resolved.ok) {
    item.text = `$(server) ${resolved.profile.label}`;
    item.tooltip = `Shardlens cluster profile: ${resolved.profile.label}\nClick to change.`;
    item.backgroundColor = undefined;
  } else {
    item.text = '$(warning) Shardlens cluster';
    item.tooltip = `${resolved.error}\nClick to choose a cluster profile.`;
    item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }
}

/** One picker step: resolves to the chosen id, or undefined when dismissed. */
function pick(
  title: string,
  options: readonly { id: string; name: string; custom?: boolean }[],
  current: string,
): Promise<string | undefined> {
  const { rows, activeIndex } = pickerRows(options, current);
  const quickPick = vscode.window.createQuickPick<ChoiceRow & vscode.QuickPickItem>();
  quickPick.title = title;
  quickPick.placeholder = `Current: ${current} — type a name or id to filter`;
  quickPick.matchOnDescription = true;
  quickPick.ignoreFocusOut = true;
  quickPick.items = rows;
  // NOTE: showQuickPick has no way to set the active row, so Enter picked the first one and a
  // walk through the picker changed settings the user never touched.
  quickPick.activeItems = [quickPick.items[activeIndex]];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: string | undefined) => {
      if (settled) return;
      settled = true;
      resolve(value);
      quickPick.dispose();
    };
    quickPick.onDidAccept(() => finish(quickPick.selectedItems[0]?.id ?? quickPick.activeItems[0]?.id));
    quickPick.onDidHide(() => finish(undefined));
    quickPick.show();
  });
}

async function askCount(title: string, current: number): Promise<number | undefined> {
  const value = await vscode.window.showInputBox({
    title,
    value: String(current),
    ignoreFocusOut: true,
    validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'Enter a whole number ≥ 1'),
  });
  return value === undefined ? undefined : Number(value.trim());
}

async function selectClusterProfile(): Promise<void> {
  const s = readSettings();
  const custom = s.customProfiles;
  const gpu = await pick('Shardlens: GPU (1/5)', listGpus(custom), s.gpu);
  if (gpu === undefined) return;
  const gpusPerNode = await askCount('Shardlens: GPUs per node (2/5)', s.gpusPerNode);
  if (gpusPerNode === undefined) return;
  const nodes = await askCount('Shardlens: nodes (3/5)', s.nodes);
  if (nodes === undefined) return;
  const links = (scope: 'intra' | 'inter') => listLinks(scope, custom);
  const intraNodeLink = await pick('Shardlens: link inside a node (4/5)', links('intra'), s.intraNodeLink);
  if (intraNodeLink === undefined) return;
  let interNodeLink = s.interNodeLink;
  if (nodes > 1) {
    const chosen = await pick('Shardlens: network between nodes (5/5)', links('inter'), s.interNodeLink);
    if (chosen === undefined) return;
    interNodeLink = chosen;
  }
  const config = vscode.workspace.getConfiguration(SECTION);
  const target = vscode.ConfigurationTarget.Workspace;
  const updates = changedSettings(s, { gpu, gpusPerNode, nodes, intraNodeLink, interNodeLink });
  for (const [key, value] of updates) await config.update(key, value, target);
}

/**
 * Creates the cluster-profile status-bar item (the caller decides when it shows) and
 * registers `shardlens.selectClusterProfile`.
 */
export function registerClusterPicker(
  context: vscode.ExtensionContext,
  output?: vscode.LogOutputChannel,
): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem(
    'shardlens.clusterProfile',
    vscode.StatusBarAlignment.Right,
    100,
  );
  item.name = 'Shardlens Cluster Profile';
  item.command = COMMAND;
  refresh(item, output);
  context.subscriptions.push(
    item,
    vscode.commands.registerCommand(COMMAND, async () => {
      try {
        await selectClusterProfile();
      } catch (error) {
        void vscode.window.showErrorMessage(
          `Shardlens: could not save the cluster profile: ${String(error)}`,
        );
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) refresh(item, output);
    }),
  );
  return item;
}
