#!/usr/bin/env bash
# The harness's checks on a CUDA GPU, in one run (docs/benchmark.md, "Measured on a GPU"):
#   1. compare_do_bench.py: every case through the harness, triton's do_bench and do_bench_cudagraph;
#   2. the harness unit tests, whose CUDA paths are skipped on a CPU-only machine;
#   3. a layer run with torch.compile (compile time apart, steady state after it) and CUDA graphs;
#   4. the collectives benchmark with NCCL on this GPU (one rank).
# Usage: bash bench/gpu_checks.sh OUT_DIR   (writes OUT_DIR/<gpu-slug>.json and the runs' logs and events)
set -u
out="${1:?usage: bash bench/gpu_checks.sh OUT_DIR}"
mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
export PYTHONUNBUFFERED=1
status=0

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name(0))'

echo "== 1. compare_do_bench.py"
timeout 300 python3 "$root/bench/compare_do_bench.py" --out "$out" 2>&1 | tee "$out/compare.log"
compare=${PIPESTATUS[0]}
echo "compare_do_bench.py exit $compare"

echo "== 2. harness unit tests on CUDA"
(cd "$root" && timeout 150 python3 -m unittest discover -s test/harness -p 'test_*.py' 2>&1 | tail -25) || status=1

echo "== 3. torch.compile and CUDA graphs on a GPT block"
cat >"$out/compile-spec.json" <<EOF
{"version": 1, "kind": "layer", "runId": "gpu-compile", "file": "$root/test/harness/fixtures/gpt_block.py",
 "workspaceRoot": "$root/test/harness/fixtures", "constructor": "Block(GPTConfig(block_size=1024, n_embd=768, n_head=12))",
 "inputs": [{"shape": [8, 1024, 768], "dtype": "float"}], "dtype": "bf16", "modes": ["forward", "forward_backward"],
 "compile": true, "device": "cuda:0", "cudaGraph": true}
EOF
(cd "$root/bench" && timeout 150 python3 -m shardlens_bench --spec "$out/compile-spec.json" --events "$out/compile-events.jsonl")
python3 - "$out/compile-events.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event["type"] in ("case", "error"):
        print(json.dumps(event)[:600])
EOF

echo "== 4. collectives, NCCL, one rank"
cat >"$out/nccl-spec.json" <<EOF
{"version": 1, "kind": "collectives", "runId": "gpu-nccl", "worldSize": 1, "backend": "nccl", "device": "cuda"}
EOF
(cd "$root/bench" && timeout 60 python3 -m shardlens_bench --spec "$out/nccl-spec.json" --events "$out/nccl-events.jsonl")
python3 - "$out/nccl-events.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event["type"] != "progress":
        print(json.dumps(event)[:300])
EOF
exit $(( compare > status ? compare : status ))
