"""Entry point for `python -m shardlens_bench`: delegates to cli.main and exits with its code."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
