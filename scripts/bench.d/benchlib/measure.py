"""One measured run: the command under its time limit, its check, one line in runs.jsonl and on stderr.

A run counts only when it exited 0 and its check (if any) passed: the work was really done (right
count, right content). A failed check is recorded as exit 99. wrk's request count and duration
come from its own report (scripts/bench.d/wrk_list.lua's WRK_RESULT line) instead.
"""
import dataclasses
import json
import re
import sys
import time
from pathlib import Path

from .process import run_timed

CHECK_FAILED = 99
WRK_RESULT = re.compile(r"^WRK_RESULT .*", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Recorder:
    """Where runs go: runs.jsonl, the logs folder, and how long one run may last."""

    runs: Path
    logs: Path
    run_limit: int

    def log_prefix(self, workload, tool, round_number):
        return self.logs / f"{workload}-{re.sub(r'[^A-Za-z0-9.]', '-', tool)}-{round_number}"

    def append(self, record):
        with open(self.runs, "a") as f:
            f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


def measure(recorder, workload, tool, round_number, requests, mean, command, check=None, env=None, wrk=False):
    """Runs COMMAND once and records it; returns its exit status (99: the check failed).

    CHECK is called as check(log_prefix) after a run that exited 0 and returns (ok, output); its
    output goes to LOG.check. The logs are LOG.stdout and LOG.stderr.
    """
    log = recorder.log_prefix(workload, tool, round_number)
    with open(f"{log}.stdout", "wb") as stdout, open(f"{log}.stderr", "wb") as stderr:
        usage = run_timed(command, recorder.run_limit, stdout=stdout, stderr=stderr, env=env)
    rc, wall = usage.exit, usage.wall_s
    if wrk:
        requests, wall, ok = _wrk_report(Path(f"{log}.stdout"))
        if not ok and rc == 0:
            rc = 1
    if rc == 0 and check is not None:
        ok, output = check(log)
        Path(f"{log}.check").write_text(output)
        if not ok:
            rc = CHECK_FAILED
    recorder.append({
        "kind": "load", "workload": workload, "tool": tool, "round": round_number, "requests": requests,
        "mean_body_bytes": mean, "exit": rc, "wall_s": round(wall, 6 if wrk else 3),
        "user_s": round(usage.user_s, 3), "sys_s": round(usage.sys_s, 3), "max_rss_kb": usage.max_rss_kb})
    rate = requests / wall if wall > 0 else 0
    cpu = (usage.user_s + usage.sys_s) * 1e6 / requests if requests > 0 else 0
    verdict = "" if rc == 0 else "  FAILED (check)" if rc == CHECK_FAILED else f"  FAILED (exit {rc})"
    lines = [f"bench: {workload} round {round_number}  {tool:<31} {requests:7d} req {wall:7.2f} s {rate:8.0f} req/s "
             f"{cpu:6.1f} µs/req {usage.max_rss_kb / 1024:6.1f} MB{verdict}"]
    if rc == CHECK_FAILED:
        lines += [f"bench:   | check: {line}" for line in Path(f"{log}.check").read_text().splitlines()]
    elif rc != 0:
        tail = Path(f"{log}.stderr").read_text(errors="replace").splitlines()[-3:]
        lines += [f"bench:   | {line}" for line in tail]
    print("\n".join(lines), file=sys.stderr, flush=True)
    time.sleep(1)  # let sockets from the last client drain before the next one starts
    return rc


def _wrk_report(stdout):
    """wrk's own count and duration, and whether it saw no error (connect, read, write, timeout, status)."""
    match = WRK_RESULT.search(stdout.read_text(errors="replace"))
    if match is None:
        return 0, 0.0, False
    fields = dict(item.split("=", 1) for item in match.group(0).split()[1:])
    requests = int(fields.get("requests", 0))
    wall = int(fields.get("duration_us", 0)) / 1e6
    return requests, wall, fields.get("errors") == "0" and fields.get("status_errors") == "0"
