"""Shared helpers for the harness tests: run `python -m shardlens_bench` as a real subprocess and
check every event it wrote against events.schema.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

REPO_ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = REPO_ROOT / "bench"
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
RUN_TIMEOUT_S = 120

if str(BENCH_DIR) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR))

from shardlens_bench.schema_check import load_schema, validate  # noqa: E402

EVENTS_SCHEMA = load_schema("events")


class HarnessRun(NamedTuple):
    returncode: int
    events: List[Dict[str, Any]]
    stdout: str
    stderr: str

    def of_type(self, event_type: str) -> List[Dict[str, Any]]:
        return [event for event in self.events if event["type"] == event_type]


def layer_spec(**overrides: Any) -> Dict[str, Any]:
    """A small valid layer spec; tests override what they exercise."""
    spec = {
        "version": 1, "kind": "layer", "runId": "test-run", "workspaceRoot": str(FIXTURES_DIR), "file": None,
        "constructor": "nn.Linear(32, 16)", "inputs": [{"shape": ["B", 32], "dtype": "float"}],
        "dims": {"B": 4}, "batchDim": "B", "batchSizes": [2], "dtype": "fp32", "modes": ["forward"],
        "compile": False, "device": "cpu", "warmup": 1, "repetitions": 3,
    }
    spec.update(overrides)
    return spec


def run_harness(spec: Any, raw_text: Optional[str] = None, extra_env: Optional[Dict[str, str]] = None) -> HarnessRun:
    """Write the spec (or `raw_text` verbatim), run the harness, and parse the events file."""
    with tempfile.TemporaryDirectory(prefix="shardlens-bench-test-") as folder:
        spec_path = Path(folder) / "spec.json"
        events_path = Path(folder) / "events.jsonl"
        spec_path.write_text(raw_text if raw_text is not None else json.dumps(spec), encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=str(BENCH_DIR), **(extra_env or {}))
        completed = subprocess.run(
            [sys.executable, "-m", "shardlens_bench", "--spec", str(spec_path), "--events", str(events_path)],
            cwd=folder, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
        )
        lines = events_path.read_text(encoding="utf-8").splitlines() if events_path.exists() else []
    return HarnessRun(completed.returncode, [json.loads(line) for line in lines], completed.stdout, completed.stderr)


def schema_problems(events: List[Dict[str, Any]]) -> List[str]:
    """Every event checked against events.schema.json; an empty list means all conform."""
    return [f"event {index} ({event.get('type')}): {problem}"
            for index, event in enumerate(events) for problem in validate(event, EVENTS_SCHEMA)]
