"""context.json (the machine, dataset and settings of a run) and the summary (summary.py), whose fields
old results share."""
import json
import os
import subprocess
import sys
import time

from . import summary
from .bench import say
from .nginx import version as nginx_version

NOTES = [
    "the libcurl floor (scripts/bench.d/multi_floor.c) reuses one easy handle per in-flight slot and drops bodies; "
    "every floor sends the request fields fetch sends by default (User-Agent, Accept-Encoding: floor_common.h)",
    "W3's flat runs fetch exactly the URLs the crawl requests; each W3 run is checked (counts, content) or fails",
    "wrk drops bodies and parses nothing; its req/s is its own count over -d",
    "async-http-client and aiohttp parse every body (JSONSerialization, json.loads); W5 (HTML) has no rows of theirs",
    "W5's pages are served as text/html (no charset parameter): --body auto embeds each as a JSON string",
    "W6 saves every body to its own file in a fresh empty folder on the work folder's disk (after each run, untimed: "
    "every file checked by sha256, then synced; all deleted when the bench exits, none between runs, since ext4 "
    "without a journal makes file creation slow for 60-360 s after a mass deletion): batchfetch fetch --save-dir "
    "(names {index}-{name}, a temporary file renamed, records to /dev/null); curl --parallel --output-dir with an "
    "output name per URL (-K); aria2c -i -d -j with out= per URL, -x1 -s1, --file-allocation=none, "
    "--allow-overwrite, no renaming, control files, readout or result table; the writing floor "
    "(scripts/bench.d/write_floor.c) is the libcurl floor's loop, each body written to its file with write(2) as "
    "libcurl hands it over (FLOOR_WRITE=whole: with one write(2) when its transfer is done), no rename",
]


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def _first_line(*command, default="none"):
    """The first line a program prints about itself (stdout, else stderr), without double quotes."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError:
        return default
    text = done.stdout or done.stderr
    if done.returncode != 0 and not text:
        return default
    return (text.splitlines() or [default])[0].replace('"', "")


def _git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)


def cpu_model():
    """The CPU's model name, as /proc/cpuinfo gives it (x86), or its implementer and part (ARM)."""
    try:
        with open("/proc/cpuinfo") as f:
            fields = dict(line.split(":", 1) for line in f.read().split("\n\n")[0].splitlines() if ":" in line)
    except OSError:
        return "unknown"
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    if "model name" in fields:
        return fields["model name"]
    return " ".join(f"{key} {fields[key]}" for key in ("CPU implementer", "CPU part") if key in fields) or "unknown"


def simd_level(bench):
    """batchfetch's own SIMD line (`--version`): the level its body kernels use in this run's environment."""
    if not bench.batchfetch:
        return "unknown"
    try:
        done = subprocess.run([bench.batchfetch, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("SIMD: ") or "BATCHFETCH_SIMD" in line:
            return line.removeprefix("SIMD: ")
    return "unknown (batchfetch --version names no level)"


def write_context(bench):
    s = bench.settings
    head = _git("rev-parse", "--short", "HEAD")
    git_rev = head.stdout.strip() if head.returncode == 0 else "unknown"
    if _git("diff", "--quiet", "HEAD", "--", "Sources", "Package.swift").returncode != 0:
        git_rev += "+dirty"
    # A binary given in BATCHFETCH was not built from this tree: its state says nothing about it.
    if bench.batchfetch_given:
        git_rev = f"tree {git_rev}, not measured (BATCHFETCH given)"
    changed = [line.split()[1] for line in _git("status", "--porcelain", "--", "Sources", "Package.swift")
               .stdout.splitlines() if len(line.split()) > 1]
    if bench.w3_ready:
        w3 = bench.w3_meta()
        w3["server"] = ("the same nginx, serving the replica's responses saved as files (the replica, "
                        "cocktaildb-replica --scale %s --result-cap 0, only made them)" % w3["scale"])
        w3["shape"] = "batchfetch crawl --details (by category): list.php, filter.php per category, lookup.php per drink"
    elif bench.w3_skip:
        w3 = {"skipped": bench.w3_skip}
    else:
        w3 = {"skipped": "crawl not among --only"}
    if bench.can.get("fetch --body"):
        fetch_note = ("batchfetch fetch writes NDJSON records with each body embedded (--body auto) to /dev/null; "
                      "batchfetch fetch --body none writes the same records without bodies")
    else:
        fetch_note = "batchfetch fetch writes records without bodies (no --body yet); records go to /dev/null"
    aiohttp = subprocess.run(["python3", "-c", "import aiohttp; print(aiohttp.__version__)"], capture_output=True,
                             text=True)
    context = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git": git_rev,
        "git_changed_files": changed,
        "batchfetch_binary": bench.batchfetch,
        "quick": s.quick,
        "rounds": s.rounds,
        "workloads": s.workloads,
        "concurrency": s.concurrency,
        "cores": len(os.sched_getaffinity(0)),
        "cpu_model": cpu_model(),
        "simd": simd_level(bench),
        "simd_requested": os.environ.get("BATCHFETCH_SIMD", "") or "unset (the CPU's best)",
        "load_average_start": bench.load_start,
        "load_average_end": load_average(),
        "dataset": json.loads((bench.work / "meta.json").read_text()),
        "w3": w3,
        "server": f"nginx {nginx_version(bench.nginx)}, 1 worker, keep-alive, access_log off, 127.0.0.1",
        "wrk": {"threads": s.wrk_threads, "seconds_w1": s.wrk_seconds["W1"], "seconds_w2": s.wrk_seconds["W2"],
                "seconds_w5": s.wrk_seconds["W5"]},
        "versions": {
            "curl": _first_line("curl", "--version"),
            "wrk": _first_line("wrk", "-v"),
            "aria2c": _first_line("aria2c", "--version"),
            "python": _first_line("python3", "--version"),
            "aiohttp": aiohttp.stdout.strip() if aiohttp.returncode == 0 else "none",
            "swift": _first_line("swift", "--version"),
        },
        "notes": [fetch_note, *NOTES],
    }
    if s.ab:
        # B's row: the same command as `batchfetch fetch` but for the program and the flags after it.
        context["ab"] = {"binary": s.ab_binary or bench.batchfetch, "args": s.ab_args}
    (bench.work / "context.json").write_text(json.dumps(context, indent=1))


def summarize(bench):
    """The tables (markdown) on stdout and in bench-results.md; raw runs and medians in bench-results.json."""
    markdown = summary.write(bench.runs, bench.work / "context.json", bench.out / "bench-results.json")
    (bench.out / "bench-results.md").write_bytes(markdown.encode())
    sys.stdout.flush()
    sys.stdout.buffer.write(markdown.encode())
    sys.stdout.buffer.flush()
    say(f"raw results: {bench.out}/bench-results.json (table: {bench.out}/bench-results.md, logs: {bench.logs})")
