"""W8: eight hosts with different limits, the list sorted by host (issue 42).

nginx of its own serves eight hosts, 127.0.0.1 on eight ports (a host is a URL's authority, its
port included, for --host-rate and --adaptive as for a connection pool; traffic stays on 127.0.0.1), each with
`limit_req` (nginx's leaky bucket, the excess answered 429): the first four allow 400 requests a
second, the last four 50, each with a burst of a tenth of a second plus two. The list: 3,200
URLs for each fast host and 400 for each slow one (14,400; --quick: a tenth), sorted by host, so
the ideal run, every host at its limit from the start, takes 8 s. Each round runs:

- `fetch --host-rate` with every host's limit as its rule;
- the same with `--robots obey` (each host serves a robots.txt that allows everything; issue 52
  asks it within 1.05× of the run without);
- `fetch --adaptive` with no limits given;
- `fetch --rate R` for the global rates in GLOBAL_RATES (one budget for all hosts);
- `fetch` with no limits (stopped after a minute: its hosts' pauses run for minutes).

All with `--order completion`, `-c 64`, `--retries 20`. In an A/B (--ab-binary, --ab-args), B runs
the rows in AB_ROWS too, each next to A's, first in every other round. W8_ROWS=NAME,…: only the
rows whose names start so (B's go with A's). From the lines nginx logged during each
run: its 429s (count and share of requests), and per host the busiest second of answered
requests and the longest run of consecutive seconds above the host's limit (its rate plus the
burst limit_req lets through). Results: OUT/w8-results.json and a
table on stderr. Each run is bounded by the bench's run limit.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

from .bench import say
from .nginx import free_port
from .process import run_timed

FAST, SLOW = 400, 50
RATES = (FAST,) * 4 + (SLOW,) * 4
# One budget for all hosts: a list sorted by host meets one slow host at a time, so 64/s (28%
# over a 50/s host) keeps 429s near 3% of the run; 400/s, the fast hosts' limit, draws a storm
# on every slow host and retries for minutes.
GLOBAL_RATES = (64,)
# The rows an A/B runs by B as well.
AB_ROWS = ("fetch --host-rate (the limits)", "fetch --adaptive")

CONFIG = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/tmp;
    log_format w8 '$server_port $msec $status';
    keepalive_requests 1000000;
{zones}
{servers}
}}
"""

ZONE = "    limit_req_zone $server_port zone=h{n}:1m rate={rate}r/s;"
SERVER = """    server {{
        listen 127.0.0.1:{port} backlog=4096;
        access_log {dir}/w8.log w8;
        location = /robots.txt {{
            root {dir};
            default_type text/plain;
        }}
        location / {{
            limit_req zone=h{n} burst={burst} nodelay;
            limit_req_status 429;
            # A file, not `return`: return answers in the rewrite phase, before limit_req runs.
            root {dir};
            default_type application/json;
            try_files /w8.json =404;
        }}
    }}"""


def _burst(rate):
    """limit_req's burst for a host: a tenth of a second of its rate. nginx judges each request
    when its one worker gets to it, so requests sent evenly arrive in clumps when that worker was
    busy with the other hosts; a twentieth of a second refused some of a client holding 7% under
    the limit."""
    return rate // 10 + 2


def _ports(count):
    """`count` distinct free ports on 127.0.0.1."""
    ports = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def _start(bench, folder, hosts):
    """nginx for `hosts`, (port, rate) pairs; None when it does not answer."""
    (folder / "tmp").mkdir(parents=True, exist_ok=True)
    (folder / "w8.json").write_text('{"ok":true}\n')
    (folder / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    os.chmod(folder, 0o755)
    os.chmod(folder / "w8.json", 0o644)
    os.chmod(folder / "robots.txt", 0o644)
    zones = "\n".join(ZONE.format(n=n, rate=rate) for n, (_, rate) in enumerate(hosts))
    servers = "\n".join(SERVER.format(port=port, dir=folder, n=n, burst=_burst(rate))
                        for n, (port, rate) in enumerate(hosts))
    (folder / "nginx.conf").write_text(CONFIG.format(dir=folder, zones=zones, servers=servers))
    process = subprocess.Popen([bench.nginx, "-e", f"{folder}/error.log", "-p", str(folder),
                                "-c", f"{folder}/nginx.conf"], stdin=subprocess.DEVNULL)
    for _ in range(50):
        done = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                               f"http://127.0.0.1:{hosts[-1][0]}/w8?probe"], capture_output=True, text=True)
        if done.stdout == "200":
            return process
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.terminate()
    log = folder / "error.log"
    sys.stderr.write(log.read_text(errors="replace") if log.exists() else "")
    say(f"W8: nginx did not start on 127.0.0.1 ports {hosts[0][0]}…{hosts[-1][0]}")
    return None


def _in_order(modes, round_number):
    """The round's order: as listed, but in even rounds each B row runs before its A row."""
    ordered = list(modes)
    if round_number % 2 == 0:
        for i, mode in enumerate(ordered):
            if mode[0].endswith(" (B)"):
                ordered[i - 1], ordered[i] = ordered[i], ordered[i - 1]
    return ordered


def _log_lines(log, start):
    with open(log, "rb") as f:
        f.seek(start)
        return f.read().decode(errors="replace").splitlines()


def _judge(lines, rate_of):
    """429s, and per host the busiest second of 200s and the longest run of consecutive seconds
    above its limit (its rate plus the burst limit_req lets through at once)."""
    throttled = 0
    seconds = {}
    for line in lines:
        fields = line.split()
        if len(fields) != 3:
            continue
        port, msec, status = fields
        if status == "429":
            throttled += 1
        elif status == "200":
            key = (int(port), int(float(msec)))
            seconds[key] = seconds.get(key, 0) + 1
    busiest, over = {}, {}
    for (host, second), count in sorted(seconds.items()):
        busiest[host] = max(busiest.get(host, 0), count)
        if count > rate_of[host] + _burst(rate_of[host]):
            run = 1
            while seconds.get((host, second - run), 0) > rate_of[host] + _burst(rate_of[host]):
                run += 1
            over[host] = max(over.get(host, 0), run)
    return throttled, busiest, over


def run(bench):
    s = bench.settings
    scale = 10 if s.quick else 1
    folder = bench.work / "w8"
    folder.mkdir(parents=True, exist_ok=True)
    hosts = list(zip(_ports(len(RATES)), RATES))
    counts = {port: (3200 if rate == FAST else 400) // scale for port, rate in hosts}
    total = sum(counts.values())
    ideal = max(counts[port] / rate for port, rate in hosts)
    urls = folder / "w8.urls"
    urls.write_text("".join(f"http://127.0.0.1:{port}/w8?n={n}\n" for port, _ in hosts for n in range(counts[port])))
    rules = ",".join(f"127.0.0.1:{port}={rate}/s" for port, rate in hosts)
    modes = [("fetch --host-rate (the limits)", ["--host-rate", rules], s.run_limit),
             ("fetch --host-rate --robots obey", ["--host-rate", rules, "--robots", "obey"], s.run_limit),
             ("fetch --adaptive", ["--adaptive"], s.run_limit)]
    modes += [(f"fetch --rate {rate}", ["--rate", str(rate)], s.run_limit) for rate in GLOBAL_RATES]
    # Without limits each 429 pauses its host for a growing backoff, for minutes: a minute says enough.
    modes += [("fetch (no limits)", [], min(60, s.run_limit))]
    picked = [p for p in os.environ.get("W8_ROWS", "").split(",") if p]
    a, b = [str(bench.batchfetch)], [s.ab_binary or str(bench.batchfetch)]
    modes = [(name, a, extra, limit) for name, extra, limit in modes
             if not picked or any(name.startswith(p) for p in picked)]
    if s.ab:
        modes = [row for name, program, extra, limit in modes
                 for row in [(name, program, extra, limit)]
                 + ([(f"{name} (B)", b, extra + shlex.split(s.ab_args), limit)] if name in AB_ROWS else [])]
    process = _start(bench, folder, hosts)
    if process is None:
        return
    rate_of = dict(hosts)
    log = folder / "w8.log"
    results = {name: [] for name, _, _, _ in modes}
    say(f"W8: {total} URLs over 8 hosts sorted by host (4 × {counts[hosts[0][0]]} at {FAST}/s, "
        f"4 × {counts[hosts[-1][0]]} at {SLOW}/s: ideal {ideal:.1f} s), nginx limit_req on 127.0.0.1 ports "
        f"{hosts[0][0]}…{hosts[-1][0]}")
    try:
        for round_number in range(1, s.rounds + 1):
            for name, program, extra, limit in _in_order(modes, round_number):
                start = log.stat().st_size if log.exists() else 0
                command = [*program, "fetch", "-q", "-i", str(urls), "-c", str(s.concurrency),
                           "--order", "completion", "--retries", "20", "-o", "/dev/null", *extra]
                with open(bench.logs / "w8.stderr", "ab") as err:
                    usage = run_timed(command, limit, stdout=subprocess.DEVNULL, stderr=err)
                time.sleep(0.2)  # nginx writes its log lines as each request ends
                throttled, busiest, over = _judge(_log_lines(log, start), rate_of)
                row = {"round": round_number, "exit": usage.exit, "limit_s": limit, "wall_s": usage.wall_s, "ideal_s": ideal,
                       "cpu_s": usage.user_s + usage.sys_s,
                       "throttled": throttled, "requests": total + throttled, "busiest_per_second": busiest,
                       "seconds_over_limit": over}
                results[name].append(row)
                if usage.exit == 124:
                    say(f"W8 round {round_number}  {name}: killed at its limit ({limit} s)")
                say(f"W8 round {round_number}  {name:<32} {usage.wall_s:6.2f} s  {usage.wall_s / ideal:5.2f}× ideal  "
                    f"{throttled:5d} 429s ({100 * throttled / (total + throttled):4.1f}%)  "
                    f"longest run over a limit: {max(over.values(), default=0)} s  exit {usage.exit}")
    finally:
        process.terminate()
        process.wait()
    lines = ["| W8 run | wall ÷ ideal | 429s | 429s % | longest run of seconds over a host's limit | ok runs |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, rows in results.items():
        if not rows:
            continue
        finished = [r["wall_s"] / r["ideal_s"] for r in rows if r["exit"] != 124]
        limit = rows[0]["limit_s"]
        ratio = f"{statistics.median(finished):.2f}×" if finished else f"> {limit / ideal:.1f}× (killed at {limit} s)"
        throttled = statistics.median(r["throttled"] for r in rows)
        share = statistics.median(100 * r["throttled"] / r["requests"] for r in rows)
        over = max(max(r["seconds_over_limit"].values(), default=0) for r in rows)
        ok = sum(1 for r in rows if r["exit"] == 0)
        lines.append(f"| {name} | {ratio} | {throttled:.0f} | {share:.1f}% | {over} | {ok}/{len(rows)} |")
    table = "\n".join(lines) + "\n"
    for name in AB_ROWS:
        pairs = [(rb["wall_s"] / ra["wall_s"], rb["cpu_s"] / ra["cpu_s"], f"{rb['throttled']}/{ra['throttled']}")
                 for ra, rb in zip(results.get(name, []), results.get(f"{name} (B)", []))
                 if ra["exit"] == 0 and rb["exit"] == 0 and ra["cpu_s"] > 0]
        if pairs:
            walls, cpus, throttled = zip(*pairs)
            table += (f"\n`{name}` (B) against A, per round: wall " + ", ".join(f"{r:.2f}×" for r in walls)
                      + "; CPU " + ", ".join(f"{r:.2f}×" for r in cpus)
                      + f" (medians {statistics.median(walls):.2f}× and {statistics.median(cpus):.2f}×); 429s B/A "
                      + ", ".join(throttled) + ".\n")
    sys.stderr.write("\n" + table + "\n")
    bench.out.mkdir(parents=True, exist_ok=True)
    (bench.out / "w8-results.json").write_text(json.dumps({"ideal_s": ideal, "urls": total, "runs": results},
                                                          indent=1))
    (bench.out / "w8-results.md").write_text(table)
