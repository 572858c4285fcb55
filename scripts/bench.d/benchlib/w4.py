"""W4 (HTTPS, HTTP/2; issue 16) runs from scripts/bench.d/w4.sh, through w4_shim.sh, which gives it
the bash bench's functions and settings; its runs are measured by measure.py like every other."""
import subprocess
import sys
from pathlib import Path

from .bench import say
from .settings import TOOLS

SHIM = Path(__file__).resolve().parent / "w4_shim.sh"


def wanted(bench):
    """`w4` among --only, or --only not narrowed; and W4 among --workloads."""
    s = bench.settings
    return (s.wants("w4") or s.only == TOOLS) and s.workload_wanted("W4")


def run(bench):
    s = bench.settings
    env = bench.child_env(
        HELPERS=bench.helpers, WORK=bench.work, OUT=bench.out, LOGS=bench.logs, RUNS=bench.runs,
        RUN_LIMIT=s.run_limit, ROUNDS=s.rounds, CONCURRENCY=s.concurrency, BENCH_NGINX=bench.nginx,
        BATCHFETCH=bench.batchfetch, W4_COUNT=s.w4_count, W1_COUNT=s.w1_count, BASE=bench.base,
        BENCH_ONLY=s.only, BENCH_DEFAULT_ONLY=TOOLS)
    done = subprocess.run(["bash", str(SHIM), "run"], env=env, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        say(f"W4 failed (exit {done.returncode})")
        sys.exit(done.returncode)


def check(check_line, log, env=None):
    """One of w4.sh's checks, "FUNCTION ARG…" (as CHECK= gave it), on the run logged at LOG."""
    done = subprocess.run(["bash", str(SHIM), "check", *check_line.split(), str(log)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return done.returncode == 0, done.stdout.decode(errors="replace")
