"""Shardlens benchmark harness: times one layer or a collectives sweep and streams JSON-lines events.

Run as `python -m shardlens_bench --spec SPEC.json --events EVENTS.jsonl` (standard library + PyTorch >= 1.13).
"""

__version__ = "0.1.0"
