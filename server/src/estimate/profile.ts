// Resolves the `shardlens.cluster.*` settings into a cluster profile: GPU and link presets,
// user overrides from `customProfiles`, the bus bandwidths collectives use, and a label.
// Unknown ids give an error value, never a throw (ARCHITECTURE.md principle 5).
import type { ClusterSettings as EditorClusterSettings } from '../config/settings';
import { GPU_PRESETS, type GpuSpec, type GpuTflops } from './hardware';
import { LINK_PRESETS, type LinkSpec } from './links';

/** A user-defined GPU: any preset field, plus `memoryGB` (nominal, read as GiB like the presets). */
export type CustomGpu = Partial<Omit<GpuSpec, 'tflops'>> & { memoryGB?: number; tflops?: Partial<GpuTflops> };
/** A user-defined link; `busBandwidthGBps` (a measured nccl-tests value) wins over the nominal one. */
export type CustomLink = Partial<LinkSpec>;

/** `shardlens.cluster.customProfiles`. */
export interface CustomProfiles {
  gpus?: Record<string, CustomGpu>;
  links?: Record<string, CustomLink>;
}

/** The `shardlens.cluster.*` settings, with the custom profiles typed. */
export type ClusterSettings = Omit<EditorClusterSettings, 'customProfiles'> & {
  customProfiles?: CustomProfiles;
};

/** A resolved cluster profile. */
export interface ClusterProfile {
  gpu: GpuSpec;
  gpusPerNode: number;
  nodes: number;
  /** gpusPerNode × nodes. */
  worldSize: number;
  intraNodeLink: LinkSpec;
  /** null on a single node. */
  interNodeLink: LinkSpec | null;
  /** Bus bandwidth (GB/s) of a collective among the GPUs of one node: one direction of the link. */
  intraNodeBusBandwidthGBps: number;
  /**
   * Bus bandwidth (GB/s) of a ring spanning the nodes: every ring channel crosses each node
   * boundary once, so the node's NICs together (nicsPerNode × per-NIC) bound it, capped by the
   * intra-node link; a measured `busBandwidthGBps` on the link replaces it. null on one node.
   */
  interNodeBusBandwidthGBps: number | null;
  /** e.g. "8× H100 SXM · NVLink 4 · 4 nodes IB NDR". */
  label: string;
}

export type ClusterProfileResult = { ok: true; profile: ClusterProfile } | { ok: false; error: string };

const GiB = 2 ** 30;
const USER_DEFINED = 'user-defined (shardlens.cluster.customProfiles)';

/** Looks up a GPU by id: presets, then user overrides/additions. */
export function resolveGpu(id: string, custom?: CustomProfiles): GpuSpec | { error: string } {
  const preset = GPU_PRESETS[id];
  const user = custom?.gpus?.[id];
  if (!preset && !user) {
    return {
      error: `Unknown GPU '${id}'. Presets: ${Object.keys(GPU_PRESETS).join(', ')}; or define it in shardlens.cluster.customProfiles.gpus.`,
    };
  }
  const { memoryGB, tflops, ...rest } = user ?? {};
  const memoryBytes = rest.memoryBytes ?? (memoryGB !== undefined ? memoryGB * GiB : preset?.memoryBytes);
  if (memoryBytes === undefined || !(memoryBytes > 0)) {
    return { error: `Custom GPU '${id}' needs a positive memoryGB (or memoryBytes).` };
  }
  const baseTflops: GpuTflops = preset?.tflops ?? { fp32: 0, tf32: null, bf16: 0, fp16: 0 };
  const defaults: Pick<GpuSpec, 'vendor' | 'memoryBandwidthGBps' | 'source'> = {
    vendor: 'other',
    memoryBandwidthGBps: 0,
    source: USER_DEFINED,
  };
  return {
    ...defaults,
    ...preset,
    ...rest,
    id,
    name: rest.name ?? preset?.name ?? id,
    memoryBytes,
    tflops: { ...baseTflops, ...tflops },
  };
}

/** Looks up a link by id: presets, then user overrides/additions. */
export function resolveLink(id: string, custom?: CustomProfiles): LinkSpec | { error: string } {
  const preset = LINK_PRESETS[id];
  const user = custom?.links?.[id];
  if (!preset && !user) {
    return {
      error: `Unknown link '${id}'. Presets: ${Object.keys(LINK_PRESETS).join(', ')}; or define it in shardlens.cluster.customProfiles.links.`,
    };
  }
  const bandwidthGBps = user?.bandwidthGBps ?? user?.busBandwidthGBps ?? preset?.bandwidthGBps;
  if (bandwidthGBps === undefined || !(bandwidthGBps > 0)) {
    return { error: `Custom link '${id}' needs a positive bandwidthGBps or busBandwidthGBps.` };
  }
  const defaults: Pick<LinkSpec, 'scope' | 'latencyUs' | 'source'> = {
    scope: 'inter',
    latencyUs: 5,
    source: USER_DEFINED,
  };
  return {
    ...defaults,
    ...preset,
    ...user,
    id,
    name: user?.name ?? preset?.name ?? id,
    bandwidthGBps,
  };
}

function positiveInteger(value: number, name: string): string | null {
  return Number.isInteger(value) && value >= 1 ? null : `${name} must be a whole number ≥ 1 (got ${value}).`;
}

/** Resolves the cluster settings into a profile, or an error value naming what is wrong. */
export function resolveClusterProfile(settings: ClusterSettings): ClusterProfileResult {
  const countError =
    positiveInteger(settings.gpusPerNode, 'gpusPerNode') ?? positiveInteger(settings.nodes, 'nodes');
  if (countError) return { ok: false, error: countError };
  const custom = settings.customProfiles;
  const gpu = resolveGpu(settings.gpu, custom);
  if ('error' in gpu) return { ok: false, error: gpu.error };
  const intra = resolveLink(settings.intraNodeLink, custom);
  if ('error' in intra) return { ok: false, error: intra.error };
  const intraBus = intra.busBandwidthGBps ?? intra.bandwidthGBps;
  let inter: LinkSpec | null = null;
  let interBus: number | null = null;
  if (settings.nodes > 1) {
    const resolved = resolveLink(settings.interNodeLink, custom);
    if ('error' in resolved) return { ok: false, error: resolved.error };
    inter = resolved;
    const nodeInjectionGBps = resolved.bandwidthGBps * (resolved.nicsPerNode ?? settings.gpusPerNode);
    interBus = resolved.busBandwidthGBps ?? Math.min(intraBus, nodeInjectionGBps);
  }
  let label = `${settings.gpusPerNode}× ${gpu.name} · ${intra.name}`;
  if (inter) label += ` · ${settings.nodes} nodes ${inter.name}`;
  return {
    ok: true,
    profile: {
      gpu,
      gpusPerNode: settings.gpusPerNode,
      nodes: settings.nodes,
      worldSize: settings.gpusPerNode * settings.nodes,
      intraNodeLink: intra,
      interNodeLink: inter,
      intraNodeBusBandwidthGBps: intraBus,
      interNodeBusBandwidthGBps: interBus,
      label,
    },
  };
}

/** GPU ids and names, presets first, then custom ids (for pickers). */
export function listGpus(custom?: CustomProfiles): { id: string; name: string; custom: boolean }[] {
  const ids = [
    ...Object.keys(GPU_PRESETS),
    ...Object.keys(custom?.gpus ?? {}).filter((id) => !GPU_PRESETS[id]),
  ];
  return ids.map((id) => ({
    id,
    name: custom?.gpus?.[id]?.name ?? GPU_PRESETS[id]?.name ?? id,
    custom: !GPU_PRESETS[id],
  }));
}

/** Link ids and names of one scope, presets first, then custom ids (custom links of any scope). */
export function listLinks(
  scope: 'intra' | 'inter',
  custom?: CustomProfiles,
): { id: string; name: string; custom: boolean }[] {
  const presets = Object.values(LINK_PRESETS).filter((l) => l.scope === scope);
  const extra = Object.entries(custom?.links ?? {}).filter(
    ([id, l]) => !LINK_PRESETS[id] && (l.scope === undefined || l.scope === scope),
  );
  return [
    ...presets.map((l) => ({ id: l.id, name: custom?.links?.[l.id]?.name ?? l.name, custom: false })),
    ...extra.map(([id, l]) => ({ id, name: l.name ?? id, custom: true })),
  ];
}
