// Interconnect presets: NVLink/Infinity Fabric inside a node, InfiniBand/RoCE/Ethernet between
// nodes. Bandwidths are per direction (vendors quote NVLink 4's 900 GB/s as both directions
// added: 450 GB/s each way; FACTS.md "GPU presets"). Latencies are rough per-hop figures.

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

/** Link presets by the ids used in `shardlens.cluster.intraNodeLink` / `interNodeLink`. */
export const LINK_PRESETS: Readonly<Record<string, LinkSpec>> = {
  nvlink3: {
    id: 'nvlink3',
    name: 'NVLink 3',
    scope: 'intra',
    bandwidthGBps: 300,
    latencyUs: 2,
    source: 'NVIDIA A100 data sheet: NVLink 600 GB/s (both directions) → 300 GB/s per direction',
  },
  nvlink4: {
    id: 'nvlink4',
    name: 'NVLink 4',
    scope: 'intra',
    bandwidthGBps: 450,
    latencyUs: 2,
    source: 'NVIDIA H100 data sheet: NVLink 900 GB/s (both directions) → 450 GB/s per direction',
  },
  nvlink5: {
    id: 'nvlink5',
    name: 'NVLink 5',
    scope: 'intra',
    bandwidthGBps: 900,
    latencyUs: 2,
    source:
      'NVIDIA Blackwell (HGX B200) data sheet: NVLink 1.8 TB/s (both directions) → 900 GB/s per direction',
  },
  pcie4: {
    id: 'pcie4',
    name: 'PCIe 4.0 x16',
    scope: 'intra',
    bandwidthGBps: 32,
    latencyUs: 5,
    source: 'PCI-SIG PCIe 4.0 specification: 16 GT/s × 16 lanes ≈ 32 GB/s per direction',
  },
  pcie5: {
    id: 'pcie5',
    name: 'PCIe 5.0 x16',
    scope: 'intra',
    bandwidthGBps: 64,
    latencyUs: 5,
    source: 'PCI-SIG PCIe 5.0 specification: 32 GT/s × 16 lanes ≈ 64 GB/s per direction',
  },
  'infinity-fabric': {
    id: 'infinity-fabric',
    name: 'Infinity Fabric',
    scope: 'intra',
    bandwidthGBps: 448,
    latencyUs: 3,
    source:
      'AMD Instinct MI300X data sheet: 7 links, 896 GB/s peer (both directions) → 448 GB/s per direction',
  },
  'ib-hdr': {
    id: 'ib-hdr',
    name: 'IB HDR',
    scope: 'inter',
    bandwidthGBps: 25,
    latencyUs: 5,
    source: 'NVIDIA ConnectX-6 / InfiniBand HDR: 200 Gb/s per port = 25 GB/s per direction',
  },
  'ib-ndr': {
    id: 'ib-ndr',
    name: 'IB NDR',
    scope: 'inter',
    bandwidthGBps: 50,
    latencyUs: 5,
    source: 'NVIDIA ConnectX-7 / InfiniBand NDR: 400 Gb/s per port = 50 GB/s per direction',
  },
  'roce-200': {
    id: 'roce-200',
    name: 'RoCE 200G',
    scope: 'inter',
    bandwidthGBps: 25,
    latencyUs: 8,
    source: 'RDMA over Converged Ethernet, 200 GbE NIC per GPU = 25 GB/s per direction',
  },
  'roce-400': {
    id: 'roce-400',
    name: 'RoCE 400G',
    scope: 'inter',
    bandwidthGBps: 50,
    latencyUs: 8,
    source: 'RDMA over Converged Ethernet, 400 GbE NIC per GPU = 50 GB/s per direction',
  },
  'ethernet-100': {
    id: 'ethernet-100',
    name: 'Ethernet 100G',
    scope: 'inter',
    bandwidthGBps: 12.5,
    nicsPerNode: 1,
    latencyUs: 30,
    source: 'IEEE 802.3 100 GbE, one NIC per node (TCP sockets) = 12.5 GB/s per direction',
  },
  'ethernet-25': {
    id: 'ethernet-25',
    name: 'Ethernet 25G',
    scope: 'inter',
    bandwidthGBps: 3.125,
    nicsPerNode: 1,
    latencyUs: 30,
    source: 'IEEE 802.3 25 GbE, one NIC per node (TCP sockets) = 3.125 GB/s per direction',
  },
};
