"""Event stream: appends one JSON object per line to the events file, flushed per line so a watcher
sees it live, and prints a human-readable line per event to stdout for the terminal."""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, Dict, Optional, TextIO


def _finite(value: Any) -> Any:
    """JSON has no NaN or Infinity: replace them with null, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class EventWriter:
    """Writes events for one run and keeps the counts the `done` event reports."""

    def __init__(self, path: str, run_id: str, stdout: Optional[TextIO] = None):
        self._file = open(path, "a", encoding="utf-8")
        self.path = path
        self._stdout = stdout or sys.stdout
        self.run_id = run_id
        self.result_count = 0
        self.error_count = 0
        self.unrecoverable = False

    def emit(self, event_type: str, **fields: Any) -> Dict[str, Any]:
        event = _finite({"type": event_type, "runId": self.run_id, "time": time.time(), **fields})
        self._file.write(json.dumps(event, allow_nan=False) + "\n")
        self._file.flush()
        if event_type in ("case", "collective"):
            self.result_count += 1
        elif event_type == "error":
            self.error_count += 1
            self.unrecoverable = self.unrecoverable or not event["recoverable"]
        self._print_line(format_event(event))
        return event

    def _print_line(self, line: str) -> None:
        # NOTE: the terminal is a convenience; the events file is the record. A non-UTF-8 console or a
        # closed stdout must not abort the run.
        try:
            print(line, file=self._stdout, flush=True)
        except UnicodeEncodeError:
            print(line.encode("ascii", "backslashreplace").decode("ascii"), file=self._stdout, flush=True)
        except OSError:
            pass

    def error(self, kind: str, message: str, recoverable: bool, **context: Any) -> Dict[str, Any]:
        """Emit an `error` event; `context` may hold `case` or `op`."""
        return self.emit("error", kind=kind, message=message, recoverable=recoverable, **context)

    def add_counts(self, results: int, errors: int, unrecoverable: bool) -> None:
        """Fold in the counts of events another process (collectives rank 0) wrote to the same file."""
        self.result_count += results
        self.error_count += errors
        self.unrecoverable = self.unrecoverable or unrecoverable

    def done(self) -> Dict[str, Any]:
        """Emit `done`: ok when no unrecoverable error was reported."""
        return self.emit("done", ok=not self.unrecoverable, cases=self.result_count, errors=self.error_count)

    def close(self) -> None:
        self._file.close()


def _num(value: Optional[float], digits: int = 3, unit: str = "") -> str:
    return "n/a" if value is None else f"{value:.{digits}f}{unit}"


def _case_label(case: Dict[str, Any]) -> str:
    compiled = "compiled" if case["compiled"] else "eager"
    return f"batch {case['batchSize']} {case['mode']} {case['dtype']} {compiled}"


def format_event(event: Dict[str, Any]) -> str:
    """One human-readable line for the terminal."""
    kind = event["type"]
    if kind == "started":
        device = event["device"]
        memory = device["memoryBytes"]
        memory_text = f", {memory / 2**30:.1f} GiB" if memory else ""
        return (
            f"[started] {event['backend']} on {device['name']}{memory_text}; torch {event['versions']['torch']},"
            f" collectives {event['collectiveBackend']}; {event['totalCases']} cases"
        )
    if kind == "progress":
        return f"[{event['done']}/{event['total']}] {event['message']}"
    if kind == "case":
        timing = event["timing"]
        memory = event["peakMemoryBytes"]
        return (
            f"[case] {_case_label(event['case'])}: median {timing['medianMs']:.4f} ms"
            f" (IQR {timing['iqrMs']:.4f}, min {timing['minMs']:.4f}, n={timing['repetitions']}, {timing['method']});"
            f" {_num(event['achievedTflops'], 3, ' TFLOP/s')}, {_num(event['percentOfPeak'], 1, '% of peak')},"
            f" {_num(event['achievedGBps'], 1, ' GB/s')}, {event['roofline'] or 'roofline n/a'};"
            f" peak memory {'n/a' if memory is None else f'{memory / 2**20:.1f} MiB'}"
        )
    if kind == "collective":
        return (
            f"[collective] {event['op']} {event['sizeBytes']} B x{event['worldSize']}: {event['timeMs']:.4f} ms,"
            f" algbw {event['algbwGBps']:.3f} GB/s, busbw {event['busbwGBps']:.3f} GB/s"
        )
    if kind == "error":
        where = f" ({_case_label(event['case'])})" if "case" in event else f" ({event['op']})" if "op" in event else ""
        then = "continuing" if event["recoverable"] else "cannot continue"
        return f"[error:{event['kind']}]{where} {event['message']} - {then}"
    if kind == "done":
        status = "ok" if event["ok"] else "failed"
        return f"[done] {status}: {event['cases']} results, {event['errors']} errors"
    return json.dumps(event)
