"""W4's summary: connections and TLS handshakes per run, and the targets as ratios within this run
(medians over rounds), in OUT/w4-results.md and on stderr; with the libcurl each program loaded."""
import json
import os
import statistics
import subprocess
import sys

from .summary import FLOOR

FETCH = "batchfetch fetch"
# curl_version() of one libcurl file, asked in a child: a libcurl loaded into the bench would bind to
# the OpenSSL the bench already loaded (Python's ssl), not to its own (scripts/libcurl8's build).
VERSION_OF = """import ctypes, os, sys
library = ctypes.CDLL(sys.argv[1])
library.curl_version.restype = ctypes.c_char_p
print(library.curl_version().decode().split(" ")[0], "from", os.path.realpath(sys.argv[1]))
"""


def libcurl_of(program):
    """The libcurl PROGRAM loads in this environment (LD_LIBRARY_PATH included): its version and file."""
    linked = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
    file = next((fields[2] for fields in map(str.split, linked.splitlines())
                 if len(fields) > 2 and fields[0].startswith("libcurl.so")), "")
    if not file:
        return f"no libcurl (ldd {program})"
    done = subprocess.run([sys.executable, "-c", VERSION_OF, file], capture_output=True, text=True)
    return done.stdout.strip()


def write(bench, floor, workloads):
    """The summary of W4's WORKLOADS (names, in table order); FLOOR: the floor W4 ran, or ""."""
    libcurls = [f"batchfetch: {libcurl_of(bench.batchfetch)}"]
    if floor:
        libcurls.append(f"libcurl floor: {libcurl_of(floor)}")
    curl = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.splitlines()
    libcurls.append(f"curl: {curl[0] if curl else ''}")
    with open(bench.runs) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    text = "".join(f"{line}\n" for line in _lines(runs, libcurls, workloads))
    (bench.out / "w4-results.md").write_text(text)
    sys.stderr.write(text)
    sys.stderr.flush()


def _loads(runs):
    return [r for r in runs if r.get("kind", "load") == "load" and r["workload"].startswith("W4")
            and r["exit"] == 0 and r["wall_s"] > 0]


def _median(values):
    return statistics.median(values) if values else None


def _cell(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"


def _lines(runs, libcurls, workloads):
    load = {}
    for r in _loads(runs):
        load.setdefault((r["workload"], r["tool"]), []).append(
            (r["requests"] / r["wall_s"], (r["user_s"] + r["sys_s"]) * 1e6 / r["requests"]))
    tls = {}
    for r in runs:
        if r.get("kind") == "w4-tls":
            tls.setdefault((r["workload"], r["tool"]), []).append(r)
    yield "### W4: connections and TLS handshakes per run (nginx's log; medians)\n"
    yield "libcurl loaded: " + "; ".join(libcurls) + "\n"
    yield "| workload | tool | req/s | CPU µs/req | connections | TLS handshakes | resumed |"
    yield "|---|---|---:|---:|---:|---:|---:|"
    for key in sorted(set(load) | set(tls)):
        rates = [v[0] for v in load.get(key, [])]
        cpus = [v[1] for v in load.get(key, [])]
        t = tls.get(key, [])
        yield (f"| {key[0]} | {key[1]} | {_cell(_median(rates))} | {_cell(_median(cpus), 1)} "
               f"| {_cell(_median([x['connections'] for x in t]))} | {_cell(_median([x['handshakes'] for x in t]))} "
               f"| {_cell(_median([x['resumed'] for x in t]))} |")
    yield ""
    yield "Targets: fetch ≥ 0.95× the libcurl floor with the same options and ≥ 1.5× curl, as the median of"
    yield "the rounds' ratios (each round runs the tools back to back, so a ratio compares like with like); h2load for"
    yield "reference.\n"
    yield ("| workload | fetch req/s | fetch ÷ floor (≥ 0.95×) | fetch ÷ curl (≥ 1.5×) | fetch ÷ h2load "
           "| CPU/req ÷ floor |")
    yield "|---|---:|---:|---:|---:|---:|"
    by_round = {(r["workload"], r["tool"], r["round"]):
                (r["requests"] / r["wall_s"], (r["user_s"] + r["sys_s"]) / r["requests"]) for r in _loads(runs)}

    def round_ratios(workload, other, index=0):
        rounds = sorted(k[2] for k in by_round if k[0] == workload and k[1] == FETCH)
        return [by_round[(workload, FETCH, n)][index] / by_round[(workload, other, n)][index]
                for n in rounds if (workload, other, n) in by_round]

    def verdict(workload, other, target):
        values = round_ratios(workload, other)
        if not values:
            return "–"
        m = statistics.median(values)
        return f"{m:.2f}× ({', '.join(f'{v:.2f}' for v in values)}) {'met' if m >= target else 'missed'}"

    for workload in workloads:
        fetch = _median([v[0] for v in load.get((workload, FETCH), [])])
        if fetch is None:
            continue
        cpu = round_ratios(workload, FLOOR, 1)
        yield (f"| {workload} | {fetch:,.0f} | {verdict(workload, FLOOR, 0.95)} "
               f"| {verdict(workload, 'curl', 1.5)} | {verdict(workload, 'h2load', 0).replace(' met', '')} "
               f"| {'–' if not cpu else f'{statistics.median(cpu):.2f}×'} |")
