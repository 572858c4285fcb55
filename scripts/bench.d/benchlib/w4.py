"""W4: HTTPS and HTTP/2, the workload users meet on real APIs. Runs when `w4` is in --only (`--only w4`
runs all of W4's tools, `--only w4,fetch,h2load` some) or when --only is not given.

nginx (w4server.py) serves W1's documents over TLS and cleartext HTTP/2. Three workloads over the
first BENCH_W4_COUNT of W1's URLs (default Settings.w4_count, at most W1's count), 64 in flight:

  W4 h1 TLS   HTTP/1.1 over TLS: a connection per transfer in flight
  W4 h2 TLS   HTTP/2 over TLS: the transfers as streams of one connection
  W4 h2c      HTTP/2 with prior knowledge on cleartext

Tools: batchfetch fetch (records with validated bodies) and bench, curl --parallel, the libcurl
floor (FLOOR_HTTP, FLOOR_CAINFO; with fetch's request fields, as every floor: floor_common.h),
h2load (nghttp2's load generator, bodies dropped: the h2 transport reference, as wrk is for h1;
--h1 for W4 h1 TLS), aiohttp (HTTP/1.1 only; when installed). Every client but h2load, which
verifies nothing, trusts the certificate instead of skipping verification (--ca-cert, --cacert,
CURLOPT_CAINFO, SSL_CERT_FILE). Every run is checked (count and protocol), and nginx's access
log gives its connections and TLS handshakes, full and resumed: written to the runs as kind "w4-tls".

Targets, from the same run: `fetch` ≥ 0.95× the libcurl floor given the same options, and ≥ 1.5×
curl, on each of h1 TLS, h2 TLS and h2c (w4summary.py). They hold per libcurl version: run the bench
once as it is and once on libcurl 8 (scripts/libcurl8, docs/LIBCURL.md):
  eval "$(scripts/libcurl8)"; LD_LIBRARY_PATH=$LIBCURL8_LIB PATH=$LIBCURL8_BIN:$PATH scripts/bench --only w4 …
which batchfetch, the floor and curl then all load; the summary names the libcurl each one loaded.
"""
import dataclasses
import os
import shutil
import subprocess

from . import checks, tools, w4summary
from .bench import say
from .measure import measure
from .settings import TOOLS
from .summary import FLOOR
from .w4server import W4Server

WORKLOADS = (("W4 h1 TLS", "h1"), ("W4 h2 TLS", "h2"), ("W4 h2c", "h2c"))


@dataclasses.dataclass(frozen=True)
class Mode:
    """How each tool speaks one of W4's protocols."""

    list: str  # the server's list: tls or h2c
    flags: tuple  # batchfetch's
    curl_flags: tuple
    floor_http: str  # the floor's FLOOR_HTTP
    protocol: str  # what fetch's and bench's reports name
    curl_version: str  # what curl's %{http_version} prints
    h2load_flags: tuple  # {c}: the in-flight cap
    alpn: str  # what h2load reports as its application protocol


def _modes(cert):
    return {
        "h1": Mode("tls", ("--ca-cert", cert), ("--http1.1", "--cacert", cert), "1.1", "HTTP/1.1", "1.1",
                   ("--h1", "-c", "{c}", "-m", "1"), "http/1.1"),
        "h2": Mode("tls", ("--http2", "--ca-cert", cert), ("--http2", "--cacert", cert), "2", "HTTP/2", "2",
                   ("-c", "1", "-m", "{c}"), "h2"),
        "h2c": Mode("h2c", ("--http2-prior-knowledge",), ("--http2-prior-knowledge",), "2-prior-knowledge",
                    "HTTP/2", "2", ("-c", "1", "-m", "{c}"), "h2c"),
    }


def wanted(bench):
    """`w4` among --only, or --only not narrowed; and W4 among --workloads."""
    s = bench.settings
    return (s.wants("w4") or s.only == TOOLS) and s.workload_wanted("W4")


def _tool(bench, tool):
    """Whether W4 runs TOOL: every tool when --only names no tool besides w4 (or is not given)."""
    only = bench.settings.only
    return only in ("w4", TOOLS) or bench.wants(tool)


def run(bench):
    s, work = bench.settings, bench.work
    # BENCH_W4_COUNT=N takes the first N of W1's URLs instead of the default (at most W1's count):
    # at 50k req/s, 100,000 make every run last the 2 s that keep start-up out.
    given = os.environ.get("BENCH_W4_COUNT", "")
    count = min(int(given) if given.isdigit() else s.w4_count, s.w1_count)
    if not shutil.which("openssl"):
        say("W4: skipped: openssl is not installed")
        return
    if not shutil.which("h2load"):
        say("W4: h2load is not installed (apt-get install nghttp2-client): no h2 reference")
    floor = ""
    if _tool(bench, "floor"):
        # Built here too: `--only w4` wants no floor for the other workloads.
        floor = str(work / "multi_floor_w4")
        if not tools.build_c(bench, "multi_floor.c", floor, work / "build-floor-w4.log"):
            say("W4: the libcurl floor did not build")
            floor = ""
    aiohttp = subprocess.run(["python3", "-c", "import aiohttp"], stderr=subprocess.DEVNULL).returncode == 0
    server = W4Server(bench, count)
    if not server.start():
        return
    try:
        say(f"W4: HTTPS and HTTP/2, the first {count} of W1's URLs, {s.concurrency} in flight, {s.rounds} round(s)")
        for round_number in range(1, s.rounds + 1):
            for workload, mode in WORKLOADS:
                _round(bench, server, workload, mode, round_number, floor, aiohttp)
    finally:
        server.stop()
    w4summary.write(bench, floor, [workload for workload, _ in WORKLOADS])


def _round(bench, server, workload, mode_name, round_number, floor, aiohttp):
    """One round of one W4 workload: each wanted tool once, checked, with what nginx saw of it."""
    s = bench.settings
    n, c, cert = server.count, str(s.concurrency), str(server.cert)
    mode = _modes(cert)[mode_name]
    urls = str(server.dir / f"{mode.list}.urls")
    mean = bench.mean_bytes("w1")

    def run_one(tool, command, check=None, env=None):
        start = server.log_size()
        measure(bench.recorder, workload, tool, round_number, n, mean, [str(word) for word in command],
                check=check, env=env)
        _record_connections(bench, server.log_lines(start), workload, tool, round_number)

    if _tool(bench, "fetch"):
        stats = server.dir / "fetch.stats.json"
        stats.unlink(missing_ok=True)
        run_one("batchfetch fetch", [bench.batchfetch, "fetch", "-i", urls, "-c", c, *mode.flags, "-o", "/dev/null",
                                     "-q", "--stats", stats],
                checks.w4_stats({"n": n, "protocol": mode.protocol, "stats": stats}))
    if _tool(bench, "bench"):
        run_one("batchfetch bench", [bench.batchfetch, "bench", "-i", urls, "-n", n, "-c", c, *mode.flags, "--json"],
                checks.w4_bench({"n": n, "protocol": mode.protocol}))
    if _tool(bench, "curl"):
        libcurl = _curl_libcurl()
        if mode_name == "h2c" and libcurl.split(".")[0].isdigit() and int(libcurl.split(".")[0]) < 8:
            if round_number == 1:
                say(f"{workload}: skipped curl: libcurl {libcurl} fails every request on a reused h2c connection "
                    "(curl issue 10634)")
        else:
            run_one("curl", ["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", c,
                             *mode.curl_flags, "-w", "%{http_code} %{http_version}\\n", "-K",
                             server.dir / f"{mode.list}.curl"],
                    checks.w4_curl({"n": n, "version": mode.curl_version}))
    if _tool(bench, "floor") and floor:
        run_one(FLOOR, [floor, urls, c], checks.printed_count({"n": n}),
                env=dict(os.environ, FLOOR_HTTP=mode.floor_http, FLOOR_CAINFO=cert))
    if _tool(bench, "h2load") and shutil.which("h2load"):
        flags = [flag.format(c=c) for flag in mode.h2load_flags]
        run_one("h2load", ["h2load", "-n", n, *flags, "-i", urls], checks.w4_h2load({"n": n, "alpn": mode.alpn}))
    if mode_name == "h1" and _tool(bench, "aiohttp") and aiohttp:
        run_one("aiohttp", ["python3", bench.helpers / "aiohttp_fetch.py", urls, c],
                env=dict(os.environ, SSL_CERT_FILE=cert))


def _curl_libcurl():
    """The libcurl version curl names on its first line ("… libcurl/7.88.1 …")."""
    done = subprocess.run(["curl", "--version"], capture_output=True, text=True)
    first = (done.stdout.splitlines() or [""])[0]
    return next((word.split("/", 1)[1] for word in first.split() if word.startswith("libcurl/")), "")


def _record_connections(bench, lines, workload, tool, round_number):
    """What nginx logged of one run ($connection $ssl_session_reused …): requests, connections, and
    TLS handshakes, full and resumed (a connection's first request tells whether its session was)."""
    seen, resumed = set(), 0
    for line in lines:
        fields = line.split()
        connection = fields[0] if fields else ""
        if connection not in seen:
            seen.add(connection)
            if len(fields) > 1 and fields[1] == "r":
                resumed += 1
    connections = len(seen)
    handshakes = connections if "TLS" in workload else 0
    bench.recorder.append({"kind": "w4-tls", "workload": workload, "tool": tool, "round": round_number,
                           "served": len(lines), "connections": connections, "handshakes": handshakes,
                           "resumed": resumed})
    say(f"{workload} round {round_number}  {tool}: nginx served {len(lines)} requests over {connections} "
        f"connections; {handshakes} TLS handshakes ({resumed} resumed)")
