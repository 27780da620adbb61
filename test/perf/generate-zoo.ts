// Generates a "model zoo" file, shaped like the large public vision-model files: a few
// dozen nn.Module classes, a checkpoint-filter helper with many branches, one module-level
// dictionary of pretrained configurations spanning a third of the file, and hundreds of
// small registered builder functions. Typing inside the dictionary or among the builders
// stresses what a training script does not: one huge statement, and hundreds of functions
// that all call one helper.
import { Dice } from './generate';

function blockClass(name: string, extraLayers: number): string[] {
  const lines = [
    `class ${name}(nn.Module):`,
    '    def __init__(self, dim: int, heads: int = 8, bias: bool = False, drop: float = 0.0, norm: Optional[Callable] = None) -> None:',
    '        super().__init__()',
    '        self.heads = heads',
    '        self.scale = (dim // heads) ** -0.5',
    '        self.qkv = nn.Linear(dim, dim * 3, bias=bias)',
    '        self.norm = norm(dim) if norm else nn.Identity()',
    '        self.drop = nn.Dropout(drop)',
    '        self.proj = nn.Linear(dim, dim)',
  ];
  for (let k = 0; k < extraLayers; k++) lines.push(`        self.extra${k} = nn.Linear(dim, dim)`);
  lines.push(
    '',
    '    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:',
    '        B, N, C = x.shape',
    '        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)',
    '        q, k, v = qkv.unbind(0)',
    '        q = self.norm(q)',
    '        attn = (q * self.scale) @ k.transpose(-2, -1)',
    '        if mask is not None:',
    '            attn = attn.masked_fill(~mask, float("-inf"))',
    '        attn = attn.softmax(dim=-1)',
    '        x = (self.drop(attn) @ v).transpose(1, 2).reshape(B, N, C)',
  );
  for (let k = 0; k < extraLayers; k++) lines.push(`        x = x + self.extra${k}(x)`);
  lines.push('        return self.proj(x)', '', '');
  return lines;
}

const NETWORK = [
  'class VisionNet(nn.Module):',
  '    def __init__(self, img_size: int = 224, patch_size: int = 16, num_classes: int = 1000, embed_dim: int = 768, depth: int = 12, num_heads: int = 12, grad_checkpointing: bool = False, **kwargs) -> None:',
  '        super().__init__()',
  '        self.num_classes = num_classes',
  '        self.grad_checkpointing = grad_checkpointing',
  '        self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)',
  '        num_patches = (img_size // patch_size) ** 2',
  '        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))',
  '        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * .02)',
  '        self.blocks = nn.Sequential(*[Block0(embed_dim, num_heads) for _ in range(depth)])',
  '        self.norm = nn.LayerNorm(embed_dim)',
  '        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()',
  '',
  '    def forward_features(self, x: torch.Tensor) -> torch.Tensor:',
  '        x = self.patch_embed(x).flatten(2).transpose(1, 2)',
  '        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)',
  '        x = x + self.pos_embed',
  '        if self.grad_checkpointing and not torch.jit.is_scripting():',
  '            for blk in self.blocks:',
  '                x = checkpoint(blk, x, use_reentrant=False)',
  '        else:',
  '            x = self.blocks(x)',
  '        return self.norm(x)',
  '',
  '    def forward(self, x: torch.Tensor) -> torch.Tensor:',
  '        return self.head(self.forward_features(x)[:, 0])',
  '',
  '',
];

/** Generates the zoo, deterministic per `seed`: `classes` block classes, `variants` configurations and builders. */
export function generateModelZooFile(input: { classes: number; variants: number; seed: number }): string {
  const dice = new Dice(input.seed);
  const out = [
    '"""A generated vision model zoo (Shardlens benchmark corpus)."""',
    'import math',
    'from typing import Callable, Dict, List, Optional',
    '',
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
    'from torch.utils.checkpoint import checkpoint',
    '',
    '',
    'def register_model(fn):',
    '    return fn',
    '',
    '',
  ];
  for (let i = 0; i < input.classes; i++) out.push(...blockClass(`Block${i}`, i % 4));
  out.push(...NETWORK);
  out.push(
    'def filter_checkpoint(state_dict: Dict[str, torch.Tensor], model: VisionNet) -> Dict[str, torch.Tensor]:',
    '    out_dict = {}',
    '    for k, v in state_dict.items():',
  );
  for (let j = 0; j < 40; j++)
    out.push(
      `        if "key${j}" in k:`,
      `            k = k.replace("key${j}", "renamed${j}")`,
      '            v = v.reshape(v.shape[0], -1) if v.ndim > 2 else v',
    );
  out.push('        out_dict[k] = v', '    return out_dict', '', '');
  out.push(
    'def _cfg(url: str = "", **kwargs) -> Dict:',
    '    return {"url": url, "num_classes": 1000, "input_size": (3, 224, 224), **kwargs}',
    '',
    '',
  );
  const names = Array.from({ length: input.variants }, (_, i) => {
    const size = ['tiny', 'small', 'base', 'large', 'huge', 'giant'][i % 6];
    const patch = [8, 14, 16, 32][Math.floor(i / 6) % 4];
    return `net_${size}_p${patch}_v${i}`;
  });
  out.push('default_cfgs = {');
  for (const name of names)
    out.push(
      `    "${name}.tag": _cfg(`,
      `        url="https://example.invalid/${name}.bin",`,
      `        hf_hub_id="zoo/${name}",`,
      `        mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5), crop_pct=${dice.pick(['0.9', '1.0', '0.875'])},`,
      `        num_classes=${dice.pick(['1000', '21843', '0', '11821'])}),`,
    );
  out.push('}', '', '');
  out.push(
    'def _create_net(variant: str, pretrained: bool = False, **kwargs) -> VisionNet:',
    '    model = VisionNet(**kwargs)',
    '    if pretrained:',
    '        state = torch.load(default_cfgs[variant]["url"], map_location="cpu")',
    '        model.load_state_dict(filter_checkpoint(state, model))',
    '    return model',
    '',
  );
  for (const name of names) {
    const [dim, depth, heads] = dice.pick([
      [192, 12, 3],
      [384, 12, 6],
      [768, 12, 12],
      [1024, 24, 16],
      [1280, 32, 16],
    ]);
    const patch = /_p(\d+)_/.exec(name)![1];
    out.push(
      '',
      '@register_model',
      `def ${name}(pretrained: bool = False, **kwargs) -> VisionNet:`,
      `    """${name.replace(/_/g, ' ')} from the zoo."""`,
      `    model_args = dict(patch_size=${patch}, embed_dim=${dim}, depth=${depth}, num_heads=${heads})`,
      `    model = _create_net("${name}", pretrained=pretrained, **dict(model_args, **kwargs))`,
      '    return model',
    );
  }
  return out.join('\n') + '\n';
}
