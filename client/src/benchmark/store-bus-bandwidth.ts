// Stores a measured bus bandwidth in the active cluster profile: merges
// `{links: {<intraNodeLink>: {busBandwidthGBps}}}` into `shardlens.cluster.customProfiles`
// in the workspace settings, keeping everything else that is there.
import * as vscode from 'vscode';
import { mergeBusBandwidth } from './export';

/** Writes the workspace setting; returns a sentence saying what was stored. */
export async function storeBusBandwidth(
  busBandwidthGBps: number,
  resource: vscode.Uri | undefined,
): Promise<string> {
  const config = vscode.workspace.getConfiguration('shardlens', resource);
  const linkId = config.get<string>('cluster.intraNodeLink', 'nvlink4');
  const current = config.inspect('cluster.customProfiles')?.workspaceValue;
  await config.update(
    'cluster.customProfiles',
    mergeBusBandwidth(current, linkId, busBandwidthGBps),
    vscode.ConfigurationTarget.Workspace,
  );
  return `Stored ${busBandwidthGBps.toFixed(1)} GB/s as the bus bandwidth of "${linkId}" in the workspace's shardlens.cluster.customProfiles.`;
}
