"""Flags and the settings they give: defaults, --quick's smaller sizes, validation."""
import argparse
import dataclasses
import os
import re
import shlex
import shutil
import sys

TOOLS = "fetch,bench,crawl,curl,floor,wrk,ahc,aiohttp,aria2c,wget2"
WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9")
# W9 makes network namespaces (root): it runs only when --workloads names it.
DEFAULT_WORKLOADS = ",".join(w for w in WORKLOADS if w != "W9")
SIMD_LEVELS = ("scalar", "sse2", "ssse3", "avx2", "avx512", "neon")  # BATCHFETCH_SIMD's names


@dataclasses.dataclass
class Settings:
    """Everything a run is told. Counts are URLs; DOCS the distinct documents they cycle over."""

    rounds: int = 3
    concurrency: int = 64
    w1_count: int = 200_000
    w1_docs: int = 20_000  # ~2.2 KB each
    # W2, W4 and W5 give every tool a run of 2 s or more on the bench's machine kind (the floor is
    # the fastest); at 20,000 their runs lasted 0.4-0.8 s and ratios moved ±5% round to round.
    w4_count: int = 100_000  # W4 (HTTPS, HTTP/2): the first URLs of W1's list
    w2_count: int = 80_000
    w2_docs: int = 2_000  # ~64 KB each
    w5_count: int = 80_000  # HTML pages: W2's shape, a body that is not JSON
    w5_docs: int = 2_000
    w6_count: int = 20_000  # images saved to files, ~40 KB of binary bytes each (~0.8 GB a run)
    w6_docs: int = 2_000
    w6_settle: int = 365  # seconds from deleting W6's files to the next W6 run (see rounds.py)
    w6_fresh_fs: bool = False  # each W6 run on a new ext4 of its own (root only; see rounds.py)
    w7_count: int = 100_000  # ~1 KB JSON bodies POSTed (w7.py)
    w3_scale: str = "100"  # the replica at scale 100 has 63,500 drinks: 63,512 requests
    wrk_seconds: dict = dataclasses.field(default_factory=lambda: {"W1": 10, "W2": 5, "W5": 5})
    wrk_threads: int = 1  # one client thread, like curl's and batchfetch's single transfer loop
    run_limit: int = 300  # seconds any one run may take before it is killed and counted failed
    memory: bool = True
    memory_urls: tuple = (100_000, 1_000_000)
    memory_distinct: int = 1_000  # distinct documents the memory-scale URLs cycle over
    memory_limit: int = 900
    only: str = TOOLS
    workloads: str = DEFAULT_WORKLOADS
    profile: bool = False
    install: bool = True
    build: bool = True
    out: str = ""
    quick: bool = False
    simd: str = ""  # BATCHFETCH_SIMD for every batchfetch run; "" leaves the environment's
    # An interleaved A/B (workloads.fetch_b): B's batchfetch ("" the measured one) and its extra flags.
    ab_binary: str = ""
    ab_args: str = ""
    ab: bool = False

    def wants(self, tool):
        """Whether --only names TOOL."""
        return tool in self.only.split(",")

    def workload_wanted(self, workload):
        return workload in self.workloads.split(",")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        _fail(f"{message} (see --help)")


def parse(argv, usage):
    """Settings from the command line (and W6_SETTLE from the environment); exits 2 on a bad flag."""
    parser = _Parser(prog="scripts/bench", add_help=False, allow_abbrev=False)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--concurrency", "-c", type=int)
    parser.add_argument("--only")
    parser.add_argument("--workloads")
    parser.add_argument("--no-memory", dest="memory", action="store_false", default=None)
    parser.add_argument("--memory", dest="memory", action="store_true")
    parser.add_argument("--memory-urls")
    parser.add_argument("--w3-scale")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out")
    parser.add_argument("--no-install", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--simd")
    parser.add_argument("--ab-binary")
    parser.add_argument("--ab-args")
    parser.add_argument("-h", "--help", action="store_true")
    args = parser.parse_args(argv)
    if args.help:
        print(usage.strip("\n"))
        sys.exit(0)
    s = Settings()
    if args.quick:
        s = dataclasses.replace(
            s, quick=True, rounds=1, w1_count=4000, w1_docs=2000, w4_count=2000, w2_count=400, w2_docs=200,
            w5_count=400, w5_docs=200, w7_count=2000, w6_count=400, w6_docs=200, w6_settle=0, run_limit=60,
            wrk_seconds={"W1": 2, "W2": 2, "W5": 2}, memory_urls=(20_000,), memory_limit=60, w3_scale="3")
    # Not a flag: W6_SETTLE=0 lets a test of W6 run twice in a row without waiting six minutes.
    if os.environ.get("W6_SETTLE", "").isdigit():
        s.w6_settle = int(os.environ["W6_SETTLE"])
    # Fresh file systems for W6 by default where they can be had (root, mkfs.ext4); W6_FRESH_FS=0
    # measures on the work folder's own file system, W6_FRESH_FS=1 insists.
    wanted = os.environ.get("W6_FRESH_FS", "")
    possible = os.geteuid() == 0 and shutil.which("mkfs.ext4") is not None and shutil.which("mount") is not None
    if wanted == "1" and not possible:
        _fail("W6_FRESH_FS=1 makes and mounts a file system for each W6 run: run the bench as root, with mkfs.ext4")
    s.w6_fresh_fs = possible and wanted != "0"
    if s.w6_fresh_fs:
        s.w6_settle = 0
    for field in ("rounds", "concurrency", "only", "memory", "profile", "out"):
        value = getattr(args, field)
        if value not in (None, False):
            setattr(s, field, value)
    if args.memory is False:
        s.memory = False
    if args.memory_urls is not None:
        try:
            s.memory_urls = tuple(int(n) for n in args.memory_urls.split())
        except ValueError:
            _fail("--memory-urls takes URL counts separated by spaces")
    s.install, s.build = not args.no_install, not args.no_build
    if args.w3_scale is not None:
        s.w3_scale = args.w3_scale
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", s.w3_scale):
        _fail("--w3-scale must be a number")
    if args.workloads is not None:
        s.workloads = args.workloads.upper()
    for workload in s.workloads.split(","):
        if workload not in WORKLOADS:
            _fail(f"--workloads takes {','.join(WORKLOADS)}, not '{workload}'")
    if args.simd is not None:
        if args.simd not in SIMD_LEVELS:
            _fail(f"--simd takes one of {', '.join(SIMD_LEVELS)}, not '{args.simd}'")
        s.simd = args.simd
    if args.ab_binary is not None:
        if not (os.path.isfile(args.ab_binary) and os.access(args.ab_binary, os.X_OK)):
            _fail(f"--ab-binary: {args.ab_binary} is not an executable file")
        s.ab_binary = os.path.abspath(args.ab_binary)
    if args.ab_args is not None:
        try:
            shlex.split(args.ab_args)
        except ValueError as error:
            _fail(f"--ab-args: {error}")
        s.ab_args = args.ab_args
    s.ab = args.ab_binary is not None or args.ab_args is not None
    if s.rounds < 1 or s.concurrency < 1:
        _fail("--rounds and --concurrency take a number above 0")
    return s


def _fail(message):
    print(f"bench: {message}", file=sys.stderr)
    sys.exit(2)
