"""Command line: `python -m shardlens_bench --spec FILE --events FILE`. Reads the spec, dispatches to the
layer or collectives runner, turns failures into `error` events and always ends a run with `done`."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .errors import HarnessError, format_traceback, one_line
from .events import EventWriter
from .spec import SpecError, load_spec

EXIT_OK = 0
EXIT_BAD_SPEC = 2


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m shardlens_bench", description=__doc__)
    parser.add_argument("--spec", required=True, help="JSON spec written by the extension")
    parser.add_argument("--events", required=True, help="JSON-lines file the events are appended to")
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        return _report_bad_spec(args.events, exc)
    try:
        writer = EventWriter(args.events, spec["runId"])
    except OSError as exc:
        print(f"shardlens_bench: cannot write events file {args.events}: {exc}", file=sys.stderr)
        return EXIT_BAD_SPEC
    try:
        _dispatch(spec, writer)
    except HarnessError as exc:
        writer.error(exc.kind, exc.message, recoverable=exc.recoverable)
    except Exception as exc:  # the run must still end with `done`
        print(format_traceback(exc), file=sys.stderr, flush=True)
        writer.error("other", f"harness failure: {one_line(exc)}", recoverable=False)
    writer.done()
    writer.close()
    return EXIT_OK


def _dispatch(spec: dict, writer: EventWriter) -> None:
    # Imported here so a bad spec is reported even when importing torch is slow or broken.
    if spec["kind"] == "layer":
        from .layer import run_layer

        run_layer(spec, writer)
    else:
        from .collectives import run_collectives

        run_collectives(spec, writer)


def _report_bad_spec(events_path: str, exc: SpecError) -> int:
    """Exit 2; report the reason as an `error` (then `done`) when the events file is writable."""
    print(f"shardlens_bench: {exc.message}", file=sys.stderr)
    try:
        writer = EventWriter(events_path, exc.run_id)
    except OSError:
        return EXIT_BAD_SPEC
    writer.error("other", exc.message, recoverable=False)
    writer.done()
    writer.close()
    return EXIT_BAD_SPEC
