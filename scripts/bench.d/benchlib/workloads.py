"""The table: each workload, the tools it runs, their command lines and checks.

A command line is a template: split like a shell line, then each word filled in from the run's
values: {batchfetch}, {floor}, {write_floor}, {ahc} (the programs), {list} (the workload's lists
without their extension: .urls, .curl, .paths, .aria2), {n} (URLs), {c} (in flight), {secs} and
{threads} (wrk), {base} (nginx), {w3_base} (W3's port), {work}, {helpers}, {dir} (W6: the run's
fresh folder). Doubled braces are curl's own (-w '%{{http_code}}').

W4 (HTTPS, HTTP/2) lives in w4.py, the cache's workload in cache.py, W8's in w8.py.
"""
import dataclasses
import os
import shlex
import shutil
from typing import Callable, Optional

from . import checks, w7


@dataclasses.dataclass(frozen=True)
class Tool:
    row: str  # its name in runs.jsonl and the tables
    only: str  # the --only name that selects it
    command: str  # the template
    check: Optional[Callable] = None  # checks.X: values → check(log) → (ok, output)
    needs: Optional[Callable] = None  # bench → bool: what it needs beyond being wanted …
    missing: str = ""  # … and what round 1 says when it is missing
    wrk: bool = False  # its count and duration come from its own report
    fresh: tuple = ()  # files deleted before the run (templates)
    drop: tuple = ()  # files deleted after it
    head: int = 0  # when set, the run takes only the list's first HEAD URLs (rounds.run_tool)

    def argv(self, values):
        return [word.format(**values) for word in shlex.split(self.command)]


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    tools: tuple
    saves_files: bool = False  # W6: each run saves its bodies into a fresh folder (rounds.py)


CURL = "curl -sS --no-progress-meter --fail --parallel --parallel-max {c}"

FETCH = Tool("batchfetch fetch", "fetch", "{batchfetch} fetch -i {list}.urls -c {c} -o /dev/null")
# Records without bodies: the transfers and the records' bookkeeping, not the body path. Next to
# FETCH's row, it shows what embedding the bodies costs.
FETCH_NONE = Tool("batchfetch fetch --body none", "fetch",
                  "{batchfetch} fetch -i {list}.urls -c {c} -o /dev/null --body none",
                  needs=lambda bench: bench.can["fetch --body"],
                  missing="batchfetch fetch --body none: batchfetch fetch has no --body flag yet")
# W1's URLs as JSON request lines (`{"url":…}`): what reading requests instead of URLs costs.
FETCH_JSONL = Tool("batchfetch fetch, JSONL requests", "fetch", "{batchfetch} fetch -i {list}.jsonl -c {c} -o /dev/null",
                   needs=lambda bench: bench.can["fetch --input-format"],
                   missing="batchfetch fetch, JSONL requests: batchfetch fetch reads no JSON request lines yet")
# Every response fact a record can carry (headers, redirects, timings, remote, tls, attempts).
FETCH_FIELDS = Tool("batchfetch fetch --fields all", "fetch",
                    "{batchfetch} fetch -i {list}.urls -c {c} -o /dev/null --fields all",
                    needs=lambda bench: bench.can["fetch --fields"],
                    missing="batchfetch fetch --fields all: batchfetch fetch has no --fields yet")
# Issue 53's comparisons on W1's URLs: the records written to a file, the same run keeping a WARC
# (with its CDXJ index, which the check counts) instead, and wget keeping one (--only wget: at
# ~1,000 req/s it gets W1's first 20,000 URLs, so its run stays within the time limit).
FETCH_FILE = Tool("batchfetch fetch -o file", "fetch", "{batchfetch} fetch -i {list}.urls -c {c} -o {work}/w1-records.ndjson",
                  fresh=("{work}/w1-records.ndjson",), drop=("{work}/w1-records.ndjson",))
FETCH_WARC = Tool("batchfetch fetch --warc", "fetch",
                  "{batchfetch} fetch -i {list}.urls -c {c} -o /dev/null --warc {work}/w1.warc.gz --warc-cdx",
                  check=checks.warc_index("{work}/w1.cdxj"), fresh=("{work}/w1.warc.gz", "{work}/w1.cdxj"),
                  drop=("{work}/w1.warc.gz", "{work}/w1.cdxj"), needs=lambda bench: bench.can["fetch --warc"],
                  missing="batchfetch fetch --warc: batchfetch fetch has no --warc yet")
WGET_WARC = Tool("wget --warc-file", "wget",
                 "wget -q -O /dev/null -i {list}.urls --warc-file={work}/w1-wget --warc-cdx --no-warc-keep-log",
                 check=checks.warc_index("{work}/w1-wget.cdx", header=True), head=20000,
                 fresh=("{work}/w1-wget.warc.gz", "{work}/w1-wget.cdx"),
                 drop=("{work}/w1-wget.warc.gz", "{work}/w1-wget.cdx"),
                 needs=lambda bench: _on_path("wget"), missing="wget: not installed")
BENCH = Tool("batchfetch bench", "bench", "{batchfetch} bench -i {list}.urls -n {n} -c {c} --json",
             needs=lambda bench: bench.can["bench"], missing="batchfetch bench: not available yet")
CURL_FLAT = Tool("curl", "curl", CURL + " -K {list}.curl")
# The libcurl floor (scripts/bench.d/multi_floor.c): as many handles as the others' in-flight cap.
FLOOR = Tool("libcurl floor (bare multi loop)", "floor", "{floor} {list}.urls {c}", check=checks.printed_count,
             needs=lambda bench: bool(bench.floor),
             missing="the libcurl floor: scripts/bench.d/multi_floor.c did not build")
WRK = Tool("wrk", "wrk", "wrk -t {threads} -c {c} -d {secs}s --timeout 10s -s {helpers}/wrk_list.lua {base} "
           "-- {list}.paths", wrk=True)
AHC = Tool("async-http-client", "ahc", "{ahc} -i {list}.urls -c {c}",
           needs=lambda bench: bool(bench.ahc) and _executable(bench.ahc),
           missing="async-http-client: Benchmarks/ahc-fetch is not built")
AIOHTTP = Tool("aiohttp", "aiohttp", "python3 {helpers}/aiohttp_fetch.py {list}.urls {c}")

# W3: the crawl, and the very URLs it requests fetched flat.
CRAWL = Tool("batchfetch crawl --details", "crawl",
             "{batchfetch} crawl --details --base-url {w3_base}/api/json/v1/ -c {c} --format ndjson "
             "-o {work}/w3-crawl.ndjson --stats {work}/w3-crawl.stats.json --progress never",
             check=checks.w3_crawl, fresh=("{work}/w3-crawl.ndjson", "{work}/w3-crawl.stats.json"))
W3_FETCH = Tool("batchfetch fetch", "fetch",
                "{batchfetch} fetch -i {list}.urls -c {c} -o /dev/null --stats {work}/w3-fetch.stats.json",
                check=checks.w3_fetch, fresh=("{work}/w3-fetch.stats.json",))
# The crawl writes its output to a file (the check reads it); so does this row, which pays the
# same kernel cost of writing ~2 KB a request to the page cache.
W3_FETCH_FILE = Tool("batchfetch fetch -o file", "fetch",
                     "{batchfetch} fetch -i {list}.urls -c {c} -o {work}/w3-fetch.ndjson "
                     "--stats {work}/w3-fetch.stats.json",
                     check=checks.w3_fetch, fresh=("{work}/w3-fetch.stats.json", "{work}/w3-fetch.ndjson"),
                     drop=("{work}/w3-fetch.ndjson",))
# -w prints each transfer's status, so the check can count them.
W3_CURL = Tool("curl", "curl", CURL + " -w '%{{http_code}}\\n' -K {list}.curl", check=checks.status_lines)

# W6: every body saved to its own file in the run's fresh folder {dir}, every file checked.
# batchfetch names files by its default template, {index}-{name}; records go to /dev/null.
SAVE = Tool("batchfetch fetch --save-dir", "fetch",
            "{batchfetch} fetch --save-dir {dir} -i {list}.urls -c {c} -o /dev/null", check=checks.w6_files,
            needs=lambda bench: bench.can["fetch --save-dir"],
            missing="batchfetch fetch --save-dir: batchfetch fetch has no --save-dir yet")
# W6 kept as a WARC in the run's fresh folder instead of a file per body (issue 53).
SAVE_WARC = Tool("batchfetch fetch --warc", "fetch",
                 "{batchfetch} fetch --warc {dir}/w6.warc.gz --warc-cdx -i {list}.urls -c {c} -o /dev/null",
                 check=checks.warc_index("{dir}/w6.cdxj"), needs=lambda bench: bench.can["fetch --warc"],
                 missing="batchfetch fetch --warc: batchfetch fetch has no --warc yet")
# Each URL's `output` line names its file; --output-dir puts them in the folder (what
# `-O --output-dir` does, with names that do not repeat: see dataset.write_w6_lists).
SAVE_CURL = Tool("curl", "curl", CURL + " --output-dir {dir} -K {list}.curl", check=checks.w6_files)
# aria2c with its work reduced to what the others do: one connection per download and no
# splitting (-x1 -s1), no preallocation, no check for an existing file nor renaming around one
# (the folder is empty), no control files, no aria2.conf, no progress readout, periodic summary or
# final table of 20,000 results, warnings only. Its names come from the `out=` line after each URL.
ARIA2C = Tool("aria2c", "aria2c",
              "aria2c -i {list}.aria2 -d {dir} -j {c} -x1 -s1 --no-conf=true --file-allocation=none "
              "--allow-overwrite=true --auto-file-renaming=false --auto-save-interval=0 "
              "--show-console-readout=false --summary-interval=0 --download-result=hide --console-log-level=warn",
              check=checks.w6_files, needs=lambda bench: _on_path("aria2c"), missing="aria2c: not installed")
# The libcurl floor's loop writing each body to its own file with write(2) (write_floor.c).
WRITE_FLOOR = Tool("libcurl writing floor (write(2) per file)", "floor", "{write_floor} {list}.urls {dir} {c}",
                   check=checks.w6_files, needs=lambda bench: bool(bench.write_floor),
                   missing="the writing floor: scripts/bench.d/write_floor.c did not build")

# W7: ~1 KB JSON bodies POSTed (w7.py); each run checked against nginx's log of what arrived.
W7_FETCH = Tool("batchfetch fetch", "fetch", "{batchfetch} fetch -i {list}.jsonl -c {c} -o /dev/null",
                check=w7.log_check, needs=lambda bench: bench.can["fetch --input-format"],
                missing="batchfetch fetch: it reads no JSON request lines yet")
W7_CURL = Tool("curl", "curl", CURL + " -K {list}.curl", check=w7.log_check)
W7_FLOOR = Tool("libcurl floor (bare multi loop)", "floor",
                "env FLOOR_BODIES={list}.bodies FLOOR_CONTENT_TYPE=application/json {floor} {list}.urls {c}",
                check=w7.log_check, needs=lambda bench: bool(bench.floor),
                missing="the libcurl floor: scripts/bench.d/multi_floor.c did not build")

# In the order each round runs them; a round rotates each workload's tools (rounds.run_rotated).
# W5 has no async-http-client or aiohttp rows: both parse every body as JSON, and its bodies are HTML.
WORKLOADS = (
    Workload("W1", (FETCH, FETCH_JSONL, FETCH_FIELDS, FETCH_FILE, FETCH_WARC, WGET_WARC, BENCH, CURL_FLAT, FLOOR, WRK,
                    AHC, AIOHTTP)),
    Workload("W2", (FETCH, FETCH_NONE, BENCH, CURL_FLAT, FLOOR, WRK, AHC, AIOHTTP)),
    Workload("W5", (FETCH, FETCH_NONE, BENCH, CURL_FLAT, FLOOR, WRK)),
    Workload("W6", (SAVE, SAVE_WARC, SAVE_CURL, ARIA2C, WRITE_FLOOR), saves_files=True),
    Workload("W3", (CRAWL, W3_FETCH, W3_FETCH_FILE, W3_CURL, FLOOR)),
    Workload("W7", (W7_FETCH, W7_CURL, W7_FLOOR)),
)


# An interleaved A/B (--ab-binary, --ab-args): on these workloads, B's run of the row named here
# beside A's (W3's flat `fetch`, W6's `fetch --save-dir`, the others' `fetch`), with the same check.
AB_ROWS = {"W1": FETCH, "W2": FETCH, "W5": FETCH, "W3": W3_FETCH, "W6": SAVE, "W7": W7_FETCH}
B_SUFFIX = " (B)"


def fetch_b(bench, tool):
    """TOOL as run by B: --ab-binary (else the measured batchfetch) with --ab-args after its flags,
    in a row named TOOL's plus " (B)". Taken word by word; braces are doubled, as the template is
    filled in with str.format. Whether B can run it is judged by A's capabilities."""
    s = bench.settings

    def literal(word):
        return shlex.quote(word).replace("{", "{{").replace("}", "}}")

    command = tool.command.replace("{batchfetch}", literal(s.ab_binary), 1) if s.ab_binary else tool.command
    return dataclasses.replace(tool, row=tool.row + B_SUFFIX,
                               command=" ".join([command, *(literal(word) for word in shlex.split(s.ab_args))]))


def is_b(tool):
    return tool.row.endswith(B_SUFFIX)


def tools_of(workload, bench):
    """The tools a workload runs in this bench: its table's, with B's row after A's in an A/B."""
    if not bench.settings.ab or workload.name not in AB_ROWS:
        return workload.tools
    a = AB_ROWS[workload.name]
    at = workload.tools.index(a) + 1
    return workload.tools[:at] + (fetch_b(bench, a),) + workload.tools[at:]


def _executable(path):
    return os.access(path, os.X_OK)


def _on_path(program):
    return shutil.which(program) is not None
