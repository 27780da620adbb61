// Catalog of well-known models as data: torchvision classifiers and Hugging Face checkpoints
// with their published parameter counts and the architecture numbers the activation formulas
// need. Lookup by HF id, torchvision function name, or HF config class (its default config).

export type ModelFamily = 'gpt2' | 'llama' | 'bert' | 't5' | 'vit' | 'cnn';

/** One catalog entry. `params` is the published count; `source` says where it comes from. */
export interface CatalogEntry {
  id: string;
  kind: 'hf' | 'torchvision';
  family: ModelFamily;
  /** Other names the entry answers to (hub aliases, HF config classes whose default it is). */
  aliases?: string[];
  configClass?: string;
  params: number;
  /** Parameters of the largest single module (DeepSpeed's largest layer). */
  largestLayerParams: number;
  layers?: number;
  hidden?: number;
  heads?: number;
  kvHeads?: number;
  ffn?: number;
  vocab?: number;
  maxPositions?: number;
  source: string;
}

type Arch = Pick<CatalogEntry, 'layers' | 'hidden' | 'heads' | 'kvHeads' | 'ffn' | 'vocab' | 'maxPositions'>;

const hfCount = 'parameter count: transformers `model.num_parameters()`';
const tvTable = 'torchvision models docs, classification weights table (num_params)';

function hf(
  id: string,
  family: ModelFamily,
  params: number,
  arch: Arch,
  extra: { aliases?: string[]; configClass?: string; source: string; largestLayerParams?: number },
): CatalogEntry {
  const largest = extra.largestLayerParams ?? largestLayer(family, arch);
  return { id, kind: 'hf', family, params, ...arch, largestLayerParams: largest, ...extra };
}

function tv(id: string, params: number, largestLayerParams: number, arch: Arch = {}): CatalogEntry {
  return {
    id,
    kind: 'torchvision',
    family: arch.layers ? 'vit' : 'cnn',
    params,
    largestLayerParams,
    ...arch,
    source: tvTable,
  };
}

/** Largest single module: the token embedding for language models, the MLP up-projection for ViT. */
function largestLayer(family: ModelFamily, a: Arch): number {
  const h = a.hidden ?? 0;
  const mlp = h * (a.ffn ?? 4 * h) + (family === 'llama' ? 0 : (a.ffn ?? 4 * h));
  return Math.max(family === 'vit' ? 0 : (a.vocab ?? 0) * h, mlp);
}

const gpt2 = (layers: number, hidden: number, heads: number): Arch => ({
  layers,
  hidden,
  heads,
  ffn: 4 * hidden,
  vocab: 50257,
  maxPositions: 1024,
});

/** The catalog. */
export const CATALOG: readonly CatalogEntry[] = [
  hf('gpt2', 'gpt2', 124_439_808, gpt2(12, 768, 12), {
    aliases: ['openai-community/gpt2', 'GPT2Config'],
    configClass: 'GPT2Config',
    source: `openai-community/gpt2 config.json; ${hfCount}`,
  }),
  hf('gpt2-medium', 'gpt2', 354_823_168, gpt2(24, 1024, 16), {
    aliases: ['openai-community/gpt2-medium'],
    source: `openai-community/gpt2-medium config.json; ${hfCount}`,
  }),
  hf('gpt2-large', 'gpt2', 774_030_080, gpt2(36, 1280, 20), {
    aliases: ['openai-community/gpt2-large'],
    source: `openai-community/gpt2-large config.json; ${hfCount}`,
  }),
  hf('gpt2-xl', 'gpt2', 1_557_611_200, gpt2(48, 1600, 25), {
    aliases: ['openai-community/gpt2-xl'],
    source: `openai-community/gpt2-xl config.json; ${hfCount}`,
  }),
  hf(
    'meta-llama/Llama-2-7b-hf',
    'llama',
    6_738_415_616,
    { layers: 32, hidden: 4096, heads: 32, kvHeads: 32, ffn: 11008, vocab: 32000, maxPositions: 4096 },
    {
      aliases: ['meta-llama/Llama-2-7b-chat-hf', 'LlamaConfig'],
      configClass: 'LlamaConfig',
      source: `meta-llama/Llama-2-7b-hf config.json; ${hfCount} (LlamaConfig() defaults are this shape)`,
    },
  ),
  hf(
    'meta-llama/Llama-2-13b-hf',
    'llama',
    13_015_864_320,
    { layers: 40, hidden: 5120, heads: 40, kvHeads: 40, ffn: 13824, vocab: 32000, maxPositions: 4096 },
    {
      aliases: ['meta-llama/Llama-2-13b-chat-hf'],
      source: `meta-llama/Llama-2-13b-hf config.json; ${hfCount}`,
    },
  ),
  hf(
    'meta-llama/Llama-2-70b-hf',
    'llama',
    68_976_648_192,
    { layers: 80, hidden: 8192, heads: 64, kvHeads: 8, ffn: 28672, vocab: 32000, maxPositions: 4096 },
    {
      aliases: ['meta-llama/Llama-2-70b-chat-hf'],
      source: `meta-llama/Llama-2-70b-hf config.json; ${hfCount}`,
    },
  ),
  hf(
    'meta-llama/Meta-Llama-3-8B',
    'llama',
    8_030_261_248,
    { layers: 32, hidden: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 128256, maxPositions: 8192 },
    {
      aliases: ['meta-llama/Meta-Llama-3-8B-Instruct', 'meta-llama/Llama-3.1-8B'],
      source: `meta-llama/Meta-Llama-3-8B config.json; model card "8B"; ${hfCount}`,
    },
  ),
  hf(
    'meta-llama/Meta-Llama-3-70B',
    'llama',
    70_553_706_496,
    { layers: 80, hidden: 8192, heads: 64, kvHeads: 8, ffn: 28672, vocab: 128256, maxPositions: 8192 },
    {
      aliases: ['meta-llama/Meta-Llama-3-70B-Instruct', 'meta-llama/Llama-3.1-70B'],
      source: `meta-llama/Meta-Llama-3-70B config.json; ${hfCount}`,
    },
  ),
  hf(
    'mistralai/Mistral-7B-v0.1',
    'llama',
    7_241_732_096,
    { layers: 32, hidden: 4096, heads: 32, kvHeads: 8, ffn: 14336, vocab: 32000, maxPositions: 32768 },
    {
      aliases: ['MistralConfig'],
      configClass: 'MistralConfig',
      source: `mistralai/Mistral-7B-v0.1 config.json; ${hfCount}`,
    },
  ),
  hf(
    'bert-base-uncased',
    'bert',
    109_482_240,
    { layers: 12, hidden: 768, heads: 12, ffn: 3072, vocab: 30522, maxPositions: 512 },
    {
      aliases: ['google-bert/bert-base-uncased', 'BertConfig'],
      configClass: 'BertConfig',
      source: `google-bert/bert-base-uncased config.json; ${hfCount} (BertModel with pooler)`,
    },
  ),
  hf(
    'bert-large-uncased',
    'bert',
    335_141_888,
    { layers: 24, hidden: 1024, heads: 16, ffn: 4096, vocab: 30522, maxPositions: 512 },
    {
      aliases: ['google-bert/bert-large-uncased'],
      source: `google-bert/bert-large-uncased config.json; ${hfCount} (BertModel with pooler)`,
    },
  ),
  hf(
    't5-small',
    't5',
    60_506_624,
    { layers: 6, hidden: 512, heads: 8, ffn: 2048, vocab: 32128, maxPositions: 512 },
    {
      aliases: ['google-t5/t5-small', 'T5Config'],
      configClass: 'T5Config',
      source: `google-t5/t5-small config.json; ${hfCount} (T5ForConditionalGeneration, tied head; layers = per stack)`,
    },
  ),
  hf(
    't5-base',
    't5',
    222_903_552,
    { layers: 12, hidden: 768, heads: 12, ffn: 3072, vocab: 32128, maxPositions: 512 },
    {
      aliases: ['google-t5/t5-base'],
      source: `google-t5/t5-base config.json; ${hfCount} (T5ForConditionalGeneration, tied head)`,
    },
  ),
  hf(
    't5-large',
    't5',
    737_668_096,
    { layers: 24, hidden: 1024, heads: 16, ffn: 4096, vocab: 32128, maxPositions: 512 },
    {
      aliases: ['google-t5/t5-large'],
      source: `google-t5/t5-large config.json; ${hfCount}; DeepSpeed "Memory Requirements" page: 737.67M params, 32.90M largest layer`,
    },
  ),
  hf(
    'google/vit-base-patch16-224',
    'vit',
    86_567_656,
    { layers: 12, hidden: 768, heads: 12, ffn: 3072, maxPositions: 197 },
    {
      aliases: ['ViTConfig'],
      configClass: 'ViTConfig',
      source: `google/vit-base-patch16-224 config.json; ${hfCount} (ViTForImageClassification, 1000 labels)`,
    },
  ),
  tv('resnet18', 11_689_512, 2_359_296),
  tv('resnet34', 21_797_672, 2_359_296),
  tv('resnet50', 25_557_032, 2_359_296),
  tv('resnet101', 44_549_160, 2_359_296),
  tv('resnet152', 60_192_808, 2_359_296),
  tv('vit_b_16', 86_567_656, 2_362_368, { layers: 12, hidden: 768, heads: 12, ffn: 3072, maxPositions: 197 }),
  tv('vit_l_16', 304_326_632, 4_198_400, {
    layers: 24,
    hidden: 1024,
    heads: 16,
    ffn: 4096,
    maxPositions: 197,
  }),
  tv('efficientnet_b0', 5_288_548, 1_281_000),
  tv('mobilenet_v2', 3_504_872, 1_281_000),
  tv('mobilenet_v3_large', 5_483_032, 1_281_000),
  tv('vgg16', 138_357_544, 102_764_544),
  tv('densenet121', 7_978_856, 1_025_000),
  tv('convnext_tiny', 28_589_128, 2_362_368),
];

/**
 * Finds a model by HF id (exact or case-insensitive, hub aliases such as `openai-community/gpt2`),
 * torchvision function name (`resnet50`, `torchvision.models.resnet50`), or HF config class
 * (`GPT2Config` → its default config). Returns undefined when unknown.
 */
export function lookupModel(name: string): CatalogEntry | undefined {
  const key = name
    .trim()
    .replace(/^torchvision\.models\./, '')
    .toLowerCase();
  return CATALOG.find(
    (e) => e.id.toLowerCase() === key || (e.aliases ?? []).some((a) => a.toLowerCase() === key),
  );
}

/** The entry whose default config an HF config class describes (`LlamaConfig` → Llama-2-7b shape). */
export function lookupConfigClass(className: string): CatalogEntry | undefined {
  return CATALOG.find((e) => e.configClass === className);
}

/**
 * Parameter count computed from the architecture numbers (to check the published counts and
 * to size models the catalog lacks): GPT-2 (tied head, learned positions), Llama/Mistral
 * (untied head, GQA, SwiGLU, RMSNorm), BERT (with pooler), T5 v1 (tied head, relative bias
 * 32 buckets per stack), ViT-B/16 classifier (1000 labels). CNNs: undefined.
 */
export function architectureParamCount(e: Pick<CatalogEntry, 'family'> & Arch): number | undefined {
  const { layers: L = 0, hidden: h = 0, heads: a = 1, vocab: v = 0 } = e;
  const f = e.ffn ?? 4 * h;
  const linear = (i: number, o: number) => i * o + o;
  const norm = 2 * h;
  switch (e.family) {
    case 'gpt2':
      return (
        v * h +
        (e.maxPositions ?? 0) * h +
        L * (linear(h, 3 * h) + linear(h, h) + linear(h, f) + linear(f, h) + 2 * norm) +
        norm
      );
    case 'llama': {
      const kv = ((e.kvHeads ?? a) * h) / a;
      return 2 * v * h + L * (2 * h * h + 2 * h * kv + 3 * h * f + 2 * h) + h;
    }
    case 'bert': {
      const embeddings = (v + (e.maxPositions ?? 0) + 2) * h + norm;
      const layer = 4 * linear(h, h) + linear(h, f) + linear(f, h) + 2 * norm;
      return embeddings + L * layer + linear(h, h);
    }
    case 't5': {
      const attn = 4 * h * h;
      const mlp = 2 * h * f;
      const bias = 32 * a;
      return v * h + L * (attn + mlp + 2 * h) + bias + L * (2 * attn + mlp + 3 * h) + bias + 2 * h;
    }
    case 'vit': {
      const patches = (e.maxPositions ?? 197) - 1;
      const embed = linear(3 * 16 * 16, h) + h + (patches + 1) * h;
      const layer = linear(h, 3 * h) + linear(h, h) + linear(h, f) + linear(f, h) + 2 * norm;
      return embed + L * layer + norm + linear(h, 1000);
    }
    case 'cnn':
      return undefined;
  }
}
