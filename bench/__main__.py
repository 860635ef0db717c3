"""``python -m bench``: every benchmark that runs in-process."""

from bench.engine import main

main()
