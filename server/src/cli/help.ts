// `--help` for the CLI and each subcommand, and the version `--version` prints (package.json's).
// test/unit/cli-help.test.ts checks that every option the parsers in cli.ts and cli-estimate.ts
// accept is described here, so a new flag cannot go undocumented.
import { version } from '../../../package.json';

/** The extension and CLI version, from package.json. */
export const VERSION: string = version;

/** `shardlens --help`. */
export const MAIN_HELP = `Usage:
  shardlens check PATH... [options]      report findings (text, JSON or SARIF) for CI
  shardlens estimate PATH [options]      parameters, memory per GPU and communication per step
  shardlens rules                        list every rule code with its summary
  shardlens --version                    print the version

Run \`shardlens COMMAND --help\` for a command's options. Settings come from [tool.shardlens]
in the nearest pyproject.toml; command-line flags win.`;

/** `shardlens check --help`. */
export const CHECK_HELP = `Usage: shardlens check PATH... [options]

Runs the rules over Python files; directories are searched recursively (skipping .git,
virtual environments, node_modules and excluded globs).

Options:
  --format text|json|sarif   output format (default: text)
  --select CODES             comma-separated rule codes or prefixes to enable (e.g. SL1,SL402)
  --ignore CODES             comma-separated rule codes or prefixes to disable
  --exclude GLOB             skip files matching GLOB (repeatable)
  --fail-on LEVEL            exit 1 when a finding at or above LEVEL exists: error, warning,
                             info (or information), hint; never: always exit 0 (default: warning)
  -h, --help                 show this help

Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or I/O errors.`;

/** `shardlens estimate --help`. */
export const ESTIMATE_HELP = `Usage: shardlens estimate PATH [options]

For each nn.Module class of a Python file: parameters, memory per GPU (weights, gradients,
optimizer state, activations) and communication per step, with the assumptions stated.
Flags win over what the script shows (torch.autocast, the optimizer, checkpoint() in forward,
batch_size/block_size), which wins over [tool.shardlens.cluster] and [tool.shardlens.estimate]
in the nearest pyproject.toml, then Shardlens's defaults; the output says which is which.

Options:
  --class NAME               only this class
  --gpus N                   total GPUs (a multiple of the GPUs per node)
  --strategy S               ddp, zero1, zero2, zero3, fsdp-full, fsdp-grad-op, fsdp-hybrid,
                             fsdp-no-shard
  --precision P              fp32; amp-bf16 or amp-fp16 (torch.autocast: fp32 weights and
                             gradients); bf16 or fp16 (fp32 master in the optimizer); bf16-pure
  --optimizer O              adamw, adam, sgd, sgd-momentum, adafactor, adam-8bit
  --checkpointing            activation checkpointing around each repeated block
  --batch B                  micro-batch size per GPU
  --seq T                    sequence length (wins over the script and the config's block_size)
  --input-shape C,H,W        image input for convnets and ViTs (default: the script's, else 3,224,224)
  --format text|json         output format (default: text)
  --config KEY=VALUE,...     values for the class's __init__ parameters or the fields of the
                             config it takes (n_layer=24,vocab_size=50257,model_type=gpt2)
  --ctor EXPR                build the model from a Python expression evaluated in the file,
                             e.g. "GPT(GPTConfig(n_layer=24))" or "resnet50(weights=None)"
  -h, --help                 show this help

Exit status: 0 on success, 2 on usage errors or a missing file.`;

/** `shardlens rules --help`. */
export const RULES_HELP = `Usage: shardlens rules

Lists every rule: code, name and one-line summary. Each rule's page is docs/rules/CODE.md.

Options:
  -h, --help                 show this help`;

/** The help of a subcommand, or undefined for an unknown one. */
export function helpFor(command: string | undefined): string | undefined {
  if (command === undefined) return MAIN_HELP;
  const byCommand: Record<string, string> = { check: CHECK_HELP, estimate: ESTIMATE_HELP, rules: RULES_HELP };
  return Object.hasOwn(byCommand, command) ? byCommand[command] : undefined;
}

/** Whether the arguments ask for help (`-h` or `--help` anywhere). */
export function asksForHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
