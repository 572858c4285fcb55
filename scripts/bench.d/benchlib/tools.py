"""The programs a run needs: installed when missing, built, and asked what they can do."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .bench import say


def _as_root(command):
    return command if os.geteuid() == 0 else ["sudo", *command]


def install(bench):
    """apt for nginx, wrk, curl, GNU time, (for W6) aria2 and (for the libcurl floors) a C compiler with
    libcurl's headers; pip for aiohttp. Exits 2 when something is missing and --no-install was given."""
    s = bench.settings
    need = []
    if not shutil.which("nginx") and not os.access("/usr/sbin/nginx", os.X_OK):
        need.append("nginx")
    for program, package in (("wrk", "wrk"), ("curl", "curl")):
        if not shutil.which(program):
            need.append(package)
    if not os.access("/usr/bin/time", os.X_OK):
        need.append("time")
    if s.wants("aria2c") and s.workload_wanted("W6") and not shutil.which("aria2c"):
        need.append("aria2")
    if s.wants("floor"):
        if not shutil.which("cc"):
            need.append("gcc")
        if not shutil.which("pkg-config"):
            need.append("pkg-config")
        if subprocess.run(["pkg-config", "--exists", "libcurl"], stderr=subprocess.DEVNULL).returncode != 0:
            need.append("libcurl4-openssl-dev")
    if need:
        if not s.install:
            say(f"missing: {' '.join(need)} (and --no-install given)")
            sys.exit(2)
        subprocess.run(_as_root(["apt-get", "update", "-qq"]), check=True)
        # nginx-light is enough (static files only) where Debian still ships it.
        if "nginx" in need and subprocess.run(["apt-cache", "show", "nginx-light"], stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL).returncode == 0:
            need = ["nginx-light" if package == "nginx" else package for package in need]
        say(f"installing {' '.join(need)}")
        subprocess.run(_as_root(["apt-get", "install", "-y", "-qq", *need]), check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if s.wants("aiohttp") and subprocess.run(["python3", "-c", "import aiohttp"],
                                             stderr=subprocess.DEVNULL).returncode != 0:
        if not s.install:
            say("missing: python aiohttp (and --no-install given)")
            sys.exit(2)
        say("installing aiohttp with pip")
        subprocess.run(["python3", "-m", "pip", "install", "-q", "aiohttp"], check=True, stdout=sys.stderr)
    bench.nginx = shutil.which("nginx") or "/usr/sbin/nginx"


def build_c(bench, source, output, log):
    """Builds one C floor against libcurl; False (with the compiler's output) when it does not build."""
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libcurl"], capture_output=True, text=True).stdout.split()
    with open(log, "wb") as f:
        built = subprocess.run(["cc", "-O2", "-o", output, str(bench.helpers / source), *flags],
                               stdout=f, stderr=subprocess.STDOUT).returncode == 0
    if not built:
        sys.stderr.write(Path(log).read_text(errors="replace"))
    return built


def build(bench, w3_dataset_current):
    """batchfetch and (for W3) the replica, release, in BENCH_SCRATCH_PATH; the async-http-client peer;
    the libcurl floors into the work folder (every run: they are the yardstick and must match their source)."""
    s, work = bench.settings, bench.work
    scratch = os.environ.get("BENCH_SCRATCH_PATH") or str(bench.root / ".build")
    given = os.environ.get("BATCHFETCH", "")
    bench.batchfetch_given = bool(given)
    bench.batchfetch = given or f"{scratch}/release/batchfetch"
    replica_given = os.environ.get("REPLICA", "")
    bench.replica = replica_given or f"{scratch}/release/cocktaildb-replica"
    bench.ahc = str(bench.root / "Benchmarks/ahc-fetch/.build/release/ahc-fetch")
    if s.wants("floor"):
        bench.floor = str(work / "multi_floor")
        if not build_c(bench, "multi_floor.c", bench.floor, work / "build-floor.log"):
            say("scripts/bench.d/multi_floor.c did not build: skipping the libcurl floor")
            bench.floor = ""
        # W6's floor: the same loop, each body written to its own file.
        if s.workload_wanted("W6"):
            bench.write_floor = str(work / "write_floor")
            if not build_c(bench, "write_floor.c", bench.write_floor, work / "build-write-floor.log"):
                say("scripts/bench.d/write_floor.c did not build: skipping W6's writing floor")
                bench.write_floor = ""
    if not s.build:
        return
    products = [] if given else ["batchfetch"]
    # The replica is needed only to make W3's files, which a kept work folder already has.
    if s.wants("crawl") and s.workload_wanted("W3") and not replica_given and not w3_dataset_current:
        products.append("cocktaildb-replica")
    # Built as Swift command-line tools ship on Linux, with the Swift runtime and Foundation linked
    # in: resolving their symbols across ~15 shared libraries cost batchfetch ~13 ms of every start.
    for product in products:
        say(f"building {product} (release, static Swift runtime)")
        if not _swift_build(work / f"build-{product}.log", "--scratch-path", scratch, "--product", product):
            say(f"{product} did not build")
            sys.exit(1)
    # The allocator moves every figure by a few percent (Package.swift links tcmalloc where it is
    # installed); say which one this run measures.
    linked = subprocess.run(["ldd", bench.batchfetch], capture_output=True, text=True).stdout
    if "libtcmalloc_minimal" in linked:
        say("batchfetch allocates with tcmalloc")
    else:
        say("batchfetch allocates with glibc's malloc (libtcmalloc-minimal4 is not installed)")
    if s.wants("ahc"):
        say("building Benchmarks/ahc-fetch (release; the first build takes minutes)")
        if not _swift_build(work / "build-ahc.log", "--package-path", "Benchmarks/ahc-fetch"):
            say("Benchmarks/ahc-fetch did not build: skipping the async-http-client peer")
            bench.ahc = ""


def _swift_build(log, *args):
    with open(log, "wb") as f:
        built = subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", *args],
                               stdout=f, stderr=subprocess.STDOUT).returncode == 0
    if not built:
        sys.stderr.write("\n".join(Path(log).read_text(errors="replace").splitlines()[-30:]) + "\n")
    return built


def request_fields(bench):
    """The floors make the request `fetch` makes (floor_common.h): its User-Agent and its default
    Accept-Encoding, through the environment every floor run inherits. Without them a floor sends a
    bare request, which on W1 took ~8% less time than the same loop sending fetch's two fields."""
    done = subprocess.run([bench.batchfetch, "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    first = (done.stdout.splitlines() or [""])[0].split()
    if len(first) == 2 and first[0] == "batchfetch":
        os.environ["FLOOR_USER_AGENT"] = f"batchfetch/{first[1]}"
    os.environ["FLOOR_ACCEPT_ENCODING"] = "all"
    agent = os.environ.get("FLOOR_USER_AGENT", "no User-Agent (batchfetch --version said no version)")
    say(f"the floors send fetch's request fields: {agent}, Accept-Encoding with every coding libcurl decodes")


def capabilities(bench):
    """What this batchfetch has, from its help: subcommands (bench and crawl came after fetch) and
    fetch's flags. `batchfetch NAME --help` of an unknown NAME prints the root help and exits 0, so
    the help's USAGE line is what tells."""
    def help_of(*args):
        done = subprocess.run([bench.batchfetch, *args, "--help"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
        return done.stdout + done.stderr

    fetch_help = help_of("fetch")
    bench.can = {
        "bench": any(line.startswith("USAGE: batchfetch bench") for line in help_of("bench").splitlines()),
        "crawl": any(line.startswith("USAGE: batchfetch crawl") for line in help_of("crawl").splitlines()),
        "fetch --body": "--body" in fetch_help,
        "fetch --save-dir": "--save-dir" in fetch_help,
        "fetch --order": "--order" in fetch_help,
        "fetch --fields": "--fields" in fetch_help,
        "fetch --input-format": "--input-format" in fetch_help,
        "fetch --warc": "--warc" in fetch_help,
    }
