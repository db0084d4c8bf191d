"""Run every benchmark under bench/ in turn and print their figures (``make bench``).

Benchmarks that need PostgreSQL or gunicorn start or create what they need themselves (see
each script's docstring); one that fails is reported and the others still run.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py")) if len(sys.argv) < 2 else [HERE / f"bench_{n}.py" for n in sys.argv[1:]]
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, check=False)
        print(f"--- {script.name}: exit {result.returncode} after {time.perf_counter() - start:.0f} s", flush=True)
        if result.returncode:
            failed.append(script.name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
