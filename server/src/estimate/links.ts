// Interconnect presets: NVLink/Infinity Fabric inside a node, InfiniBand/RoCE/Ethernet between
// nodes, read from bench/shardlens_bench/presets.json (one table for TypeScript and Python; each
// row names its data sheet or specification). Bandwidths are per direction: vendors quote
// NVLink 4's 900 GB/s with both directions added, 450 GB/s each way. Latencies are rough.
import presets from '../../../bench/shardlens_bench/presets.json';

/** One link of a cluster profile. */
export interface LinkSpec {
  id: string;
  name: string;
  /** `intra`: between the GPUs of one node; `inter`: between nodes. */
  scope: 'intra' | 'inter';
  /** Nominal bandwidth per GPU (intra) or per NIC (inter), one direction, GB/s (1e9 B/s). */
  bandwidthGBps: number;
  /** Inter-node only: NICs per node; omitted means one per GPU (rail-optimised, as in DGX). */
  nicsPerNode?: number;
  /** Approximate latency of one collective step, microseconds. */
  latencyUs: number;
  /** Measured nccl-tests bus bandwidth (GB/s); when set it replaces the nominal figure. */
  busBandwidthGBps?: number;
  /** Data sheet or specification the figure comes from. */
  source: string;
}

/** A checked LinkSpec from one row of presets.json; throws naming the row when a field is wrong. */
export function linkSpecFromRow(row: Record<string, unknown>): LinkSpec {
  const problem = (field: string) => new Error(`presets.json: link '${String(row.id)}' has a bad ${field}`);
  const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;
  if (typeof row.id !== 'string' || typeof row.name !== 'string') throw problem('id or name');
  if (row.scope !== 'intra' && row.scope !== 'inter') throw problem('scope');
  if (!positive(row.bandwidthGBps)) throw problem('bandwidthGBps');
  if (!positive(row.latencyUs)) throw problem('latencyUs');
  if (row.nicsPerNode !== undefined && !positive(row.nicsPerNode)) throw problem('nicsPerNode');
  if (typeof row.source !== 'string' || !row.source) throw problem('source');
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    bandwidthGBps: row.bandwidthGBps as number,
    ...(row.nicsPerNode !== undefined ? { nicsPerNode: row.nicsPerNode as number } : {}),
    latencyUs: row.latencyUs as number,
    source: row.source,
  };
}

/** Link presets by the ids used in `shardlens.cluster.intraNodeLink` / `interNodeLink`. */
export const LINK_PRESETS: Readonly<Record<string, LinkSpec>> = Object.fromEntries(
  (presets.links as Record<string, unknown>[]).map((row) => [row.id as string, linkSpecFromRow(row)]),
);
