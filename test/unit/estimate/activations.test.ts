// Activation memory: Korthikanti et al. 2022 (arXiv:2205.05198) Table 2 at the GPT-3 175B
// configuration, and Megatron-LM's theoretical_memory_usage.py terms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  embeddingAndLogitsActivationBytes,
  layerStackActivationBytes,
  transformerActivationBytes,
  transformerLayerActivationBytes,
} from '../../../server/src/estimate';

// GPT-3 175B (Korthikanti et al. §4 and Table 3): s = 2048, h = 12288, a = 96, b = 1, t = 8.
const gpt3 = { seq: 2048, microBatch: 1, hidden: 12288, heads: 96, layers: 96 };
const sbh = 2048 * 12288;

test('no parallelism: sbh(34 + 5as/h), with 5as/h = 80 for GPT-3 (§4.1)', () => {
  assert.equal((5 * gpt3.heads * gpt3.seq) / gpt3.hidden, 80);
  assert.equal(transformerLayerActivationBytes(gpt3), sbh * (34 + 80));
  // §4.1: the 5as/h term is 70% of the layer's activations for GPT-3, which selective recompute removes.
  const selective = transformerLayerActivationBytes({ ...gpt3, recompute: 'selective' });
  assert.equal(Math.round((1 - selective / transformerLayerActivationBytes(gpt3)) * 100), 70);
});

test('tensor parallel, sequence parallel, selective and full recompute rows of Table 2', () => {
  const t = 8;
  assert.equal(transformerLayerActivationBytes({ ...gpt3, tensorParallel: t }), sbh * (10 + 24 / t + 80 / t));
  assert.equal(
    transformerLayerActivationBytes({ ...gpt3, tensorParallel: t, sequenceParallel: true }),
    (sbh / t) * (34 + 80),
  );
  const spSelective = transformerLayerActivationBytes({
    ...gpt3,
    tensorParallel: t,
    sequenceParallel: true,
    recompute: 'selective',
  });
  assert.equal(spSelective, (34 * sbh) / t);
  assert.equal(transformerLayerActivationBytes({ ...gpt3, recompute: 'full' }), 2 * sbh);
  // Abstract: SP + selective recompute reduce activation memory about 5× against TP alone.
  const tpOnly = transformerLayerActivationBytes({ ...gpt3, tensorParallel: t });
  assert.ok(tpOnly / spSelective > 5 && tpOnly / spSelective < 6);
});

test('flash attention drops the 5as/h term; the kernel keeps its output and an fp32 logsumexp', () => {
  const { seq: s, microBatch: b, heads: a } = gpt3;
  assert.equal(transformerLayerActivationBytes({ ...gpt3, flashAttention: true }), 36 * sbh + 4 * a * s * b);
});

test('dtypes per saved tensor: fp32 66sbh + 9as²b, autocast 38sbh + 7as²b (fp32 norms, residual, softmax)', () => {
  const { seq: s, microBatch: b, heads: a } = gpt3;
  const core = a * s * s * b;
  const fp32 = transformerLayerActivationBytes({ ...gpt3, dtypes: { matmul: 4, fp32ops: 4, residual: 4 } });
  assert.equal(fp32, 66 * sbh + 9 * core);
  const amp = transformerLayerActivationBytes({ ...gpt3, dtypes: { matmul: 2, fp32ops: 4, residual: 4 } });
  assert.equal(amp, 38 * sbh + 7 * core);
  // Full recompute keeps the fp32 layer input under autocast.
  const full = transformerLayerActivationBytes({
    ...gpt3,
    recompute: 'full',
    dtypes: { matmul: 2, fp32ops: 4, residual: 4 },
  });
  assert.equal(full, 4 * sbh);
});

test("Megatron's generalisation: 34 = 18 + 4·ffn/h", () => {
  const llama = {
    seq: 4096,
    microBatch: 1,
    hidden: 4096,
    heads: 32,
    ffn: 11008,
    recompute: 'selective' as const,
  };
  assert.equal(transformerLayerActivationBytes(llama), 4096 * 4096 * (18 + (4 * 11008) / 4096));
});

test('whole model with SP + selective equals theoretical_memory_usage.py (pp = 1)', () => {
  const args = {
    ...gpt3,
    ffn: 4 * 12288,
    vocab: 51200,
    tensorParallel: 8,
    sequenceParallel: true,
    recompute: 'selective',
  } as const;
  const s = 2048;
  const b = 1;
  const h = 12288;
  // Transcribed from megatron/theoretical_memory_usage.py compute_activation_memory.
  let megatron = s * b * h * (18 + 4 * ((4 * h) / h)) * 96;
  megatron += 8 * s * b * 1;
  megatron += s * b * h * 1;
  megatron += s * b * h * 4 * (1 + 51200 / h);
  megatron /= 8;
  assert.equal(transformerActivationBytes(args), Math.round(megatron));
  assert.equal(
    embeddingAndLogitsActivationBytes({ seq: s, microBatch: b, hidden: h, vocab: 51200 }),
    8 * s + s * h + 4 * s * h + 4 * s * 51200,
  );
});

test('generic stacks: the sum of saved output bytes × micro-batch', () => {
  const layers = [
    { outputElements: 1000 },
    { outputElements: 500, bytesPerElement: 4 },
    { outputElements: 9999, saved: false },
  ];
  assert.equal(layerStackActivationBytes({ layers, microBatch: 3 }), 3 * (2000 + 2000));
});
