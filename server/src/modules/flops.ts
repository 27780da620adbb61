// Forward FLOPs of one catalog layer per token (or per output position for convolutions),
// counted as torch.utils.flop_counter.FlopCounterMode does: 2·m·n·k per matmul (a multiply
// and an add per MAC). Training ≈ 3× forward: backward computes two matmuls per forward one
// (gradients of inputs and of weights) — Kaplan et al. 2020, §2.1.
import type { ModuleInstance } from './module-instance';

/** Forward FLOPs of a layer and what they are counted per. */
export interface LayerFlops {
  forward: number;
  /** "token", "output position" or "token at sequence length T". */
  per: string;
  /** The formula, for the hover. */
  formula: string;
}

/** Backward ≈ 2× forward (weight and input gradients). */
export const BACKWARD_OVER_FORWARD = 2;

const n = (m: ModuleInstance, key: string): number => {
  const value = m.layerConfig?.[key];
  return typeof value === 'number' ? value : Number.NaN;
};

/** Forward FLOPs of a catalog layer, or undefined when it has no matmul formula here. */
export function layerForwardFlops(layer: ModuleInstance, seq: number): LayerFlops | undefined {
  switch (layer.typeName) {
    case 'Linear': {
      const [i, o] = [n(layer, 'in_features'), n(layer, 'out_features')];
      return { forward: 2 * i * o, per: 'token', formula: `2·m·n·k per matmul: 2 × ${i} × ${o} per token` };
    }
    case 'Embedding':
      return { forward: 0, per: 'token', formula: 'a table lookup: no matmul' };
    case 'MultiheadAttention': {
      const e = n(layer, 'embed_dim');
      // q, k, v and output projections (4·2·E²) plus scores and weighted sum (2·2·T·E).
      return {
        forward: 8 * e * e + 4 * seq * e,
        per: `token at sequence length ${seq}`,
        formula: `projections 4 × 2·E² + attention 2 × 2·T·E (E = ${e}, T = ${seq})`,
      };
    }
    case 'LSTM':
    case 'GRU':
    case 'RNN': {
      const [i, h, layers, gates] = [
        n(layer, 'input_size'),
        n(layer, 'hidden_size'),
        n(layer, 'num_layers'),
        n(layer, 'gates'),
      ];
      const dirs = layer.layerConfig?.bidirectional ? 2 : 1;
      let total = 0;
      for (let l = 0; l < layers; l++) total += dirs * 2 * gates * h * ((l === 0 ? i : h * dirs) + h);
      return {
        forward: total,
        per: 'token',
        formula: `2·gates·H·(input + H) per layer and direction (gates = ${gates}, H = ${h})`,
      };
    }
    default: {
      const kernel = layer.layerConfig?.kernel_size;
      if (!/^Conv(Transpose)?[123]d$/.test(layer.typeName) || !Array.isArray(kernel)) return undefined;
      const k = kernel.reduce((a, b) => a * b, 1);
      const [i, o, g] = [n(layer, 'in_channels'), n(layer, 'out_channels'), n(layer, 'groups')];
      return {
        forward: (2 * i * o * k) / g,
        per: 'output position',
        formula: `2 × (${i}/${g}) × ${kernel.join('×')} × ${o} per output position`,
      };
    }
  }
}
