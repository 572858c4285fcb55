"""--profile: where batchfetch's time per request goes. perf with the cpu-clock event (hardware
counters are often not available in VMs), call graphs by frame pointer, reports by shared object
and by symbol."""
import shutil
import subprocess
import sys

from .bench import say


def _table(data, sort, lines):
    """A flat self-time table, without perf's comments and padding."""
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "-g", "none", "--sort", sort,
                             "--stdio"], capture_output=True, text=True).stdout
    rows = [line.rstrip(" -") for line in report.splitlines() if line and not line.startswith("#")]
    return "".join(f"{row}\n" for row in rows[:lines])


def run(bench):
    s = bench.settings
    if not s.profile:
        return
    if shutil.which("perf") is None:
        say("profile skipped: perf is not installed (apt-get install linux-perf)")
        return
    say("profile: perf record of batchfetch fetch over W1")
    data = bench.out / "perf-fetch.data"
    with open(bench.logs / "perf-record.stderr", "wb") as stderr:
        recorded = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", "2999", "-g", "-o", str(data), "--",
             "timeout", "--foreground", "-k", "5", str(s.run_limit), bench.batchfetch, "fetch",
             "-i", str(bench.work / "w1.urls"), "-c", str(s.concurrency), "-o", "/dev/null"],
            stderr=stderr, stdin=subprocess.DEVNULL)
    if recorded.returncode != 0:
        say(f"profile: perf record failed (see {bench.logs})")
    dso = _table(data, "dso", 15)
    (bench.out / "perf-fetch-dso.txt").write_text(dso)
    (bench.out / "perf-fetch-symbols.txt").write_text(_table(data, "dso,symbol", 60))
    sys.stderr.write("".join(f"bench:   | {line}\n" for line in dso.splitlines()))
    say(f"profile: {bench.out}/perf-fetch-dso.txt, {bench.out}/perf-fetch-symbols.txt (data: {data})")
