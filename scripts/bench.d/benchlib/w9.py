"""W9: many hosts over WAN-like links (issue 54): round trips, loss and a link rate that loopback lacks.

Runs as root, and only when --workloads names it. Two network namespaces made for the run, bf9-srv
and bf9-cli, joined by one veth pair: eight server addresses (10.99.0.1-8/24) on the server's end,
the client's 10.99.0.100 on the other. Neither namespace has any other interface or route, so the
traffic cannot leave them; both are deleted when the run ends, also on failure or Ctrl-C.

Each host gets its round trip and loss from a shaper. Where the kernel has sch_netem it is netem:
on each end's veth, an HTB class per server address (u32 on the address) with a netem of half
the round trip and the loss under it. Without netem (this bench's usual VM), it is
scripts/bench.d/w9_shaper.c, compiled into the work folder, on an NFQUEUE in each namespace: every
packet arriving on the veth waits half the round trip of its server address and is dropped at the
loss rate (held at ingress, where the packet no longer counts against the sender's socket).
Either way the loss applies to each direction. A row's link rate is a token bucket (tc tbf) on the
server end's egress: one link for every host. Before a row's runs, `ping -U` from the client to each
of its hosts checks the round trips (none under 98% of the configured one, the mean within 10% + 3 ms
above it), or W9 stops.

nginx of its own, in bf9-srv, on every address: HTTP/1.1 on port 80, TLS on 443 (a self-signed
certificate for the eight addresses; ALPN offers h2 and http/1.1), 2 KB and 1 MB JSON files at
/2k/N.json and /1m/N.json (N numbers the list; the URLs are distinct, so every body is sent).
Its log ($pid $connection $server_addr $status $server_protocol …) gives each run's connections
(distinct $pid-$connection pairs that carried a request), statuses and protocols.

Rows (counts ÷ 5 with --quick), the URLs round-robin over the hosts:
- W9a: 4,000 × 2 KB over 8 hosts at RTT 40 ms; and at RTT 150 ms with 1% loss;
- W9b: 64 × 1 MB over 4 hosts, one 50 Mbit/s link, RTT 80 ms, 0.5% loss; with the link's floor,
  bytes ÷ rate + one round trip;
- W9c: W9a at RTT 40 ms, host 7 at RTT 5 s, host 8 dropping every packet: batchfetch with
  `--order completion` and in input order; when the six healthy hosts' records were all written
  (batchfetch: its output read through a pipe, each line timed as it arrives; the others: the
  last change (ctime) of the healthy hosts' files), and how many records in all;
- W9d: W9a over HTTPS at RTT 80 ms, HTTP/1.1 and h2.

Tools, each round in a rotated order: `batchfetch fetch -c 64 -o FILE` (flags from W9_FETCH_ARGS
added), curl --parallel --parallel-max 64 (-K: url and output pairs), wget2 --max-threads 64,
aria2c -j 64 (HTTP/1.1 only: not in h2 rows); those --only names (or all). All run in bf9-cli
(`ip netns exec`) under the bench's time limit (120 s; 60 s with --quick), killed at it and
counted failed. A run is complete when every URL (W9c: every healthy host's URL) has its full
200 body: a record with "ok" and the file's size, or a file with the file's bytes (aria2c's
without a .aria2 control file beside it). Per run: wall, server-side connections, complete
URLs, peak RSS (GNU time). batchfetch's speed to curl and wget2: the peer's wall ÷ batchfetch's
(W9c: the healthy hosts' times) per round, the median over rounds. Results: OUT/w9-results.json,
OUT/w9-results.md and the table on stderr.
"""
import atexit
import dataclasses
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time

from .bench import say
from .process import TIMED_OUT, run_timed
from .rounds import run_rotated

SERVER_NS, CLIENT_NS = "bf9-srv", "bf9-cli"
SERVER_VETH, CLIENT_VETH = "bf9-s", "bf9-c"
SERVERS = [f"10.99.0.{n}" for n in range(1, 9)]
CLIENT = "10.99.0.100"
SMALL, LARGE = 2048, 1 << 20
SLOW_RTT_MS, SLOW, DEAD = 5000, 6, 7  # W9c: host 7 (index 6) slow, host 8 dropping everything
HEALTHY = range(0, 6)
PEERS = ("curl", "wget2")  # batchfetch's ratios are to these


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    count: int
    hosts: int
    size: int
    rtt_ms: int
    loss: float = 0.0
    rate_mbit: int = 0
    tls: bool = False
    h2: bool = False
    faults: bool = False  # W9c's slow host and dead host

    def host_rtt(self, host):
        return SLOW_RTT_MS if self.faults and host == SLOW else self.rtt_ms

    def host_loss(self, host):
        return 1.0 if self.faults and host == DEAD else self.loss

    def url(self, n):
        scheme = "https" if self.tls else "http"
        folder = "2k" if self.size == SMALL else "1m"
        return f"{scheme}://{SERVERS[n % self.hosts]}/{folder}/{n}.json"

    def floor_s(self):
        """The link's floor: every body's bytes at the link rate, plus one round trip."""
        return self.count * self.size * 8 / (self.rate_mbit * 1e6) + self.rtt_ms / 1000 if self.rate_mbit else None


def rows(quick):
    small, large = (800, 16) if quick else (4000, 64)
    return [Row("W9a RTT 40", small, 8, SMALL, 40),
            Row("W9a RTT 150, 1% loss", small, 8, SMALL, 150, loss=0.01),
            Row("W9b 50 Mbit, RTT 80, 0.5% loss", large, 4, LARGE, 80, loss=0.005, rate_mbit=50),
            Row("W9c RTT 40, slow + dead host", small, 8, SMALL, 40, faults=True),
            Row("W9d HTTPS h1, RTT 80", small, 8, SMALL, 80, tls=True),
            Row("W9d HTTPS h2, RTT 80", small, 8, SMALL, 80, tls=True, h2=True)]


def _ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _in_ns(ns, *command, check=True):
    return subprocess.run(["ip", "netns", "exec", ns, *command], check=check, capture_output=True, text=True)


class Network:
    """The two namespaces, their veth pair, the shapers and the link rate: create(), shape(row), destroy()."""

    def __init__(self, bench, shaper):
        self.bench = bench
        self.shaper = shaper  # the compiled w9_shaper, or "" where netem shapes
        self.shapers = []
        self.counts = {}

    def create(self):
        self.destroy()
        _ip("netns", "add", SERVER_NS)
        _ip("netns", "add", CLIENT_NS)
        _ip("link", "add", SERVER_VETH, "netns", SERVER_NS, "type", "veth", "peer", "name", CLIENT_VETH,
            "netns", CLIENT_NS)
        for address in SERVERS:
            _ip("-n", SERVER_NS, "addr", "add", f"{address}/24", "dev", SERVER_VETH)
        _ip("-n", CLIENT_NS, "addr", "add", f"{CLIENT}/24", "dev", CLIENT_VETH)
        for ns, veth in ((SERVER_NS, SERVER_VETH), (CLIENT_NS, CLIENT_VETH)):
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "link", "set", veth, "up")
            if self.shaper:
                # No --queue-bypass: with no shaper listening, packets are dropped, not let through unshaped.
                _in_ns(ns, "iptables", "-A", "INPUT", "-i", veth, "-j", "NFQUEUE", "--queue-num", "0")

    def shape(self, row):
        """The row's round trips, loss and link rate on the veth pair."""
        self._stop_shapers()
        _in_ns(SERVER_NS, "tc", "qdisc", "del", "dev", SERVER_VETH, "root", check=False)
        _in_ns(CLIENT_NS, "tc", "qdisc", "del", "dev", CLIENT_VETH, "root", check=False)
        if self.shaper:
            specs = [f"{SERVERS[h]}={row.host_rtt(h) * 500}/{round(row.host_loss(h) * 1e6)}" for h in range(row.hosts)]
            for seed, ns in enumerate((SERVER_NS, CLIENT_NS), start=1):
                out = open(self.bench.work / "w9" / f"shaper-{ns}.out", "w")
                process = subprocess.Popen(["ip", "netns", "exec", ns, self.shaper, "0", str(seed), *specs],
                                           stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
                self.shapers.append((process, out))
            time.sleep(0.3)
            if row.rate_mbit:
                _in_ns(SERVER_NS, "tc", "qdisc", "add", "dev", SERVER_VETH, "root", "tbf", "rate",
                       f"{row.rate_mbit}mbit", "burst", "32kb", "latency", f"{row.rtt_ms}ms")
        else:
            self._netem(SERVER_NS, SERVER_VETH, "src", row)
            self._netem(CLIENT_NS, CLIENT_VETH, "dst", row)

    def _netem(self, ns, veth, field, row):
        """HTB with a class per server address (u32 on its src or dst), netem under each; the server end's
        root class carries the link rate."""
        rate = f"{row.rate_mbit}mbit" if row.rate_mbit and field == "src" else "10gbit"
        _in_ns(ns, "tc", "qdisc", "add", "dev", veth, "root", "handle", "1:", "htb", "default", "99")
        _in_ns(ns, "tc", "class", "add", "dev", veth, "parent", "1:", "classid", "1:1", "htb", "rate", rate)
        _in_ns(ns, "tc", "class", "add", "dev", veth, "parent", "1:1", "classid", "1:99", "htb", "rate", rate)
        for h in range(row.hosts):
            classid = f"1:{h + 10}"
            _in_ns(ns, "tc", "class", "add", "dev", veth, "parent", "1:1", "classid", classid, "htb", "rate", rate)
            _in_ns(ns, "tc", "qdisc", "add", "dev", veth, "parent", classid, "netem", "delay",
                   f"{row.host_rtt(h) / 2}ms", "loss", f"{row.host_loss(h) * 100}%", "limit", "100000")
            _in_ns(ns, "tc", "filter", "add", "dev", veth, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                   "match", "ip", field, f"{SERVERS[h]}/32", "flowid", classid)

    def _stop_shapers(self):
        """Stops the shapers and keeps their counts, per namespace and address: (accepted, dropped)."""
        self.counts = {}
        for process, out in self.shapers:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            out.close()
            ns = process.args[3]
            for line in open(out.name).read().splitlines():
                match = re.match(r"(\S+) accepted=(\d+) dropped=(\d+)", line)
                if match:
                    self.counts[(ns, match[1])] = (int(match[2]), int(match[3]))
        self.shapers = []

    def loss_seen(self, row):
        """The shapers' drop share over the row's hosts (the dead one aside) since shape(row), both directions."""
        self._stop_shapers()
        accepted = dropped = 0
        for (ns, address), (a, d) in self.counts.items():
            if address in SERVERS[:row.hosts] and not (row.faults and address in (SERVERS[SLOW], SERVERS[DEAD])):
                accepted, dropped = accepted + a, dropped + d
        return dropped / (accepted + dropped) if accepted + dropped else None

    def verify(self, row):
        """ping -U (user-to-user: the kernel's receive stamp comes before the client's shaper holds the
        packet) from the client to each host; returns (ok, a line saying what it measured)."""
        pings = {}
        for h in range(row.hosts):
            rtt = row.host_rtt(h)
            count, deadline = (2, 14) if rtt >= 1000 else (5, 5)
            pings[h] = subprocess.Popen(["ip", "netns", "exec", CLIENT_NS, "ping", "-U", "-n", "-q", "-i", "0.2",
                                         "-c", str(count), "-w", str(deadline), SERVERS[h]],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok, parts = True, []
        for h, ping in pings.items():
            text = ping.communicate()[0]
            match = re.search(r"= ([\d.]+)/([\d.]+)/", text)
            want = row.host_rtt(h)
            if row.host_loss(h) >= 1.0:
                parts.append(f".{h + 1} no answer" if match is None else f".{h + 1} ANSWERED (should drop all)")
                ok = ok and match is None
                continue
            low, got = (float(match[1]), float(match[2])) if match else (None, None)
            # No packet early; the mean late by scheduling at most (a loaded 2-core machine adds ms).
            good = got is not None and low >= 0.98 * want - 0.5 and got <= 1.1 * want + 3
            ok = ok and good
            parts.append(f".{h + 1} {got:.1f}" if got is not None else f".{h + 1} no answer")
        return ok, "ping RTT ms: " + ", ".join(parts)

    def destroy(self):
        self._stop_shapers()
        for ns in (CLIENT_NS, SERVER_NS):
            if _ip("netns", "pids", ns, check=False).returncode == 0:
                pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
                for pid in pids:  # what W9 started in its namespaces and left running
                    try:
                        os.kill(int(pid), 9)
                    except (ProcessLookupError, ValueError):
                        pass
                _ip("netns", "del", ns, check=False)


CONFIG = """worker_processes 1;
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 8192; }}
http {{
    log_format w9 '$msec $pid $connection $server_addr $status $body_bytes_sent $server_protocol';
    access_log {dir}/access.log w9;
    sendfile on;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    ssl_session_cache shared:W9:1m;
    default_type application/json;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    server {{
{listens}
        ssl_certificate {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;
        root {dir}/www;
        location /2k/ {{ try_files /2k.json =404; }}
        location /1m/ {{ try_files /1m.json =404; }}
        location / {{ return 404; }}
    }}
}}
"""


def _body(size):
    """A JSON document of exactly SIZE bytes."""
    return b'{"pad":"' + b"w" * (size - 11) + b'"}\n'


class Server:
    """W9's nginx in bf9-srv: start(), log_size(), judge(start), stop()."""

    def __init__(self, bench, folder):
        self.bench = bench
        self.dir = folder
        self.cert = folder / "cert.pem"
        self.log = folder / "access.log"
        self.process = None

    def start(self):
        folder = self.dir
        (folder / "tmp").mkdir(parents=True, exist_ok=True)
        (folder / "www").mkdir(exist_ok=True)
        for name, size in (("2k.json", SMALL), ("1m.json", LARGE)):
            (folder / "www" / name).write_bytes(_body(size))
        names = ",".join(f"IP:{address}" for address in SERVERS)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-subj", "/CN=batchfetch-w9", "-addext", f"subjectAltName={names}", "-days", "2",
                        "-keyout", str(folder / "key.pem"), "-out", str(self.cert)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)
        # nginx's workers run as an unprivileged user.
        www = folder / "www"
        for path in (folder, www, folder / "key.pem", www / "2k.json", www / "1m.json"):
            os.chmod(path, os.stat(path).st_mode | 0o055)
        listens = "\n".join(f"        listen {a}:80 backlog=4096;\n        listen {a}:443 ssl http2 backlog=4096;"
                            for a in SERVERS)
        (folder / "nginx.conf").write_text(CONFIG.format(dir=folder, listens=listens))
        self.process = subprocess.Popen(["ip", "netns", "exec", SERVER_NS, self.bench.nginx, "-e",
                                         f"{folder}/error.log", "-p", str(folder), "-c", f"{folder}/nginx.conf"],
                                        stdin=subprocess.DEVNULL)
        for _ in range(50):
            probe = _in_ns(CLIENT_NS, "curl", "-s", "--cacert", str(self.cert), "-o", "/dev/null", "-w",
                           "%{http_code}", f"https://{SERVERS[0]}/2k/probe.json", check=False)
            if probe.stdout == "200":
                return True
            if self.process.poll() is not None:
                break
            time.sleep(0.2)
        log = folder / "error.log"
        sys.stderr.write(log.read_text(errors="replace") if log.exists() else "")
        say("W9: nginx did not start in its namespace")
        self.stop()
        return False

    def log_size(self):
        try:
            return self.log.stat().st_size
        except OSError:
            return 0

    def judge(self, start):
        """From the log since START: connections that carried a request, statuses, protocols."""
        with open(self.log, "rb") as f:
            f.seek(start)
            lines = f.read().decode(errors="replace").splitlines()
        connections, statuses, protocols = set(), {}, {}
        for line in lines:
            fields = line.split()
            if len(fields) != 7:
                continue
            _, pid, connection, _, status, _, protocol = fields
            connections.add((pid, connection))
            statuses[status] = statuses.get(status, 0) + 1
            protocols[protocol] = protocols.get(protocol, 0) + 1
        return len(connections), statuses, protocols

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str  # the table's row
    only: str  # its --only name
    argv: list
    records: bool  # batchfetch's NDJSON (read through a pipe) or one file a URL in a folder


def _tools(bench, row, lists, cert, outdir):
    extra = shlex.split(os.environ.get("W9_FETCH_ARGS", ""))
    fetch = [bench.batchfetch, "fetch", "-i", str(lists["urls"]), "-c", "64"]
    curl = ["curl", "-s", "-S", "--parallel", "--parallel-max", "64", "-K", str(lists["curl"])]
    wget2 = ["wget2", "--no-config", "-q", "--max-threads", "64", "-i", str(lists["urls"]), "-P", str(outdir)]
    aria2c = ["aria2c", "--no-conf", "-q", "-j", "64", "-i", str(lists["urls"]), "-d", str(outdir)]
    if row.tls:
        fetch += ["--ca-cert", str(cert)]
        curl += ["--cacert", str(cert)]
        wget2 += ["--ca-certificate", str(cert)]
        aria2c += [f"--ca-certificate={cert}"]
        if row.h2:
            fetch += ["--http2"]
            curl += ["--http2"]
            wget2 += ["--http2"]
        else:
            curl += ["--http1.1"]
            wget2 += ["--no-http2"]
    tools = []
    if row.faults:
        tools += [Tool("batchfetch fetch --order completion", "fetch", fetch + ["--order", "completion", *extra], True),
                  Tool("batchfetch fetch (input order)", "fetch", fetch + extra, True)]
    else:
        tools += [Tool("batchfetch fetch", "fetch", fetch + extra, True)]
    tools += [Tool("curl --parallel", "curl", curl, False), Tool("wget2", "wget2", wget2, False)]
    if not row.h2:
        tools += [Tool("aria2c", "aria2c", aria2c, False)]
    return [tool for tool in tools if bench.wants(tool.only)]


def _write_lists(folder, row):
    urls = [row.url(n) for n in range(row.count)]
    paths = {"urls": folder / "w9.urls", "curl": folder / "w9.curl"}
    paths["urls"].write_text("".join(f"{url}\n" for url in urls))
    out = folder / "out"
    paths["curl"].write_text("".join(f'url = "{url}"\noutput = "{out}/{n}.json"\n' for n, url in enumerate(urls)))
    return paths


def _url_number(url):
    match = re.search(r"/(\d+)\.json$", url)
    return int(match[1]) if match else None


def _healthy(row):
    """W9c's URLs on its six healthy hosts (empty for the other rows)."""
    return {n for n in range(row.count) if n % row.hosts in HEALTHY} if row.faults else set()


def _check_records(lines, row, start):
    """(complete URLs, records, healthy hosts' last record in seconds or None) from (time, line) pairs."""
    complete, records, done, healthy_left = set(), 0, None, _healthy(row)
    for at, line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        records += 1
        n = _url_number(record.get("url") or "")
        if n is not None and record.get("ok") and record.get("status") == 200 and record.get("bytes") == row.size:
            complete.add(n)
            if n in healthy_left:
                healthy_left.discard(n)
                if not healthy_left:
                    done = at - start
    return complete, records, done


def _check_files(outdir, row, start_wall):
    """(complete URLs, files, healthy hosts' last file change in seconds or None) from the run's folder."""
    want = _body(row.size)
    complete, files, newest, healthy = set(), 0, 0.0, _healthy(row)
    for entry in os.scandir(outdir):
        if not entry.is_file() or entry.name.endswith(".aria2"):
            continue
        files += 1
        n = _url_number("/" + entry.name)
        if n is None or os.path.exists(entry.path + ".aria2"):
            continue
        with open(entry.path, "rb") as f:
            if f.read() != want:
                continue
        complete.add(n)
        if n in healthy:
            # ctime: wget2 sets each file's mtime to the server's Last-Modified (also when told not to).
            newest = max(newest, entry.stat().st_ctime - start_wall)
    return complete, files, newest if healthy and healthy <= complete else None


def _read_lines(fd, lines, sink):
    """Each line of batchfetch's output with the moment it arrived; to SINK too, unless None."""
    with os.fdopen(fd, "rb") as pipe:
        for line in pipe:
            lines.append((time.monotonic(), line))
            if sink is not None:
                sink.write(line)


def _peak_before(limit, finished, peaks):
    """The peak RSS (VmHWM, KB) of what runs in the client's namespace a second before the run's limit,
    for a run killed there (GNU time, killed with it, reports nothing)."""
    if finished.wait(max(0.0, limit - 1)):
        return
    pids = subprocess.run(["ip", "netns", "pids", CLIENT_NS], capture_output=True, text=True).stdout.split()
    for pid in pids:
        try:
            status = open(f"/proc/{pid}/status").read()
        except OSError:
            continue
        match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
        if match:
            peaks.append(int(match[1]))


def _timed(command, limit, stdout, stderr):
    """run_timed in the client's namespace; the wall and peak RSS of a killed run from the bench's side."""
    finished, peaks = threading.Event(), []
    watcher = threading.Thread(target=_peak_before, args=(limit, finished, peaks), daemon=True)
    watcher.start()
    start = time.monotonic()
    try:
        usage = run_timed(["ip", "netns", "exec", CLIENT_NS, *command], limit, stdout=stdout, stderr=stderr)
    finally:
        finished.set()
    if usage.exit == TIMED_OUT:
        usage.wall_s = time.monotonic() - start
        watcher.join(timeout=10)
        usage.max_rss_kb = max(peaks, default=0)
    return usage


def _run(bench, row, tool, round_number, server, folder, limit):
    outdir = folder / "out"
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir(parents=True)
    name = re.sub(r"[^A-Za-z0-9]+", "-", f"{row.name}-{tool.name}").strip("-")
    log = bench.logs / f"W9-{name}-{round_number}"
    start_log = server.log_size()
    lines = []
    with open(f"{log}.stderr", "wb") as err, open(f"{log}.stdout", "wb") as out:
        start, start_wall = time.monotonic(), time.time()
        if tool.records:
            read_fd, write_fd = os.pipe()
            # The records are kept in the log where they are small (not W9b's 1 MB bodies).
            sink = out if row.size == SMALL else None
            reader = threading.Thread(target=_read_lines, args=(read_fd, lines, sink), daemon=True)
            reader.start()
            try:
                usage = _timed(tool.argv, limit, write_fd, err)
            finally:
                os.close(write_fd)
            reader.join(timeout=30)
        else:
            usage = _timed(tool.argv, limit, out, err)
    time.sleep(0.5)  # nginx logs a request as it ends
    connections, statuses, protocols = server.judge(start_log)
    if tool.records:
        complete, records, done = _check_records(lines, row, start)
    else:
        complete, records, done = _check_files(outdir, row, start_wall)
    shutil.rmtree(outdir, ignore_errors=True)
    healthy = _healthy(row)
    if row.faults:
        ok = usage.exit != TIMED_OUT and done is not None
    else:
        ok = usage.exit != TIMED_OUT and len(complete) == row.count
    return {"round": round_number, "exit": usage.exit, "ok": ok, "wall_s": round(usage.wall_s, 3), "limit_s": limit,
            "max_rss_kb": usage.max_rss_kb, "user_s": usage.user_s, "sys_s": usage.sys_s,
            "connections": connections, "statuses": statuses, "protocols": protocols,
            "complete": len(complete), "records": records, "healthy_done_s": done,
            "healthy_complete": len(healthy & complete), "healthy": len(healthy)}


def _say_run(row, tool, r):
    done = ""
    if row.faults:
        at = r["healthy_done_s"]
        done = f"  healthy hosts' {r['healthy']} done at " + (
            f"{at:.2f} s" if at is not None else f"– ({r['healthy_complete']} done)")
    killed = f"  killed at {r['limit_s']} s" if r["exit"] == TIMED_OUT else ""
    say(f"{row.name} round {r['round']}  {tool:<36} {r['wall_s']:7.2f} s  {r['connections']:4d} conns  "
        f"{r['complete']}/{row.count} complete  {r['records']} records  {r['max_rss_kb'] / 1024:6.1f} MB  "
        f"exit {r['exit']}{killed}{done}{'' if r['ok'] else '  FAILED'}")


def _install(bench, tools):
    """apt for what W9 needs beyond the bench's own programs."""
    need = []
    for program, package in (("ip", "iproute2"), ("tc", "iproute2"), ("ping", "iputils-ping"), ("cc", "gcc"),
                             ("openssl", "openssl"), ("iptables", "iptables")):
        if not shutil.which(program) and package not in need:
            need.append(package)
    if not os.path.exists("/usr/include/libnetfilter_queue/libnetfilter_queue.h"):
        need.append("libnetfilter-queue-dev")
    for program, package in (("wget2", "wget2"), ("aria2c", "aria2")):
        if program in tools and not shutil.which(program):
            need.append(package)
    if not need:
        return True
    if not bench.settings.install:
        say(f"W9: missing {' '.join(need)} (and --no-install given)")
        return False
    say(f"W9: installing {' '.join(need)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *need], check=True, stdout=subprocess.DEVNULL, env=env)
    return True


def _has_netem():
    """Whether this kernel has sch_netem: a dummy netem on a veth in a throwaway namespace."""
    ns = "bf9-probe"
    _ip("netns", "del", ns, check=False)
    _ip("netns", "add", ns)
    try:
        _ip("-n", ns, "link", "add", "bf9-p0", "type", "veth", "peer", "name", "bf9-p1")
        done = _in_ns(ns, "tc", "qdisc", "add", "dev", "bf9-p0", "root", "netem", "delay", "1ms", check=False)
        return done.returncode == 0
    finally:
        _ip("netns", "del", ns, check=False)


def _cpu():
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 "unknown")
    flags = next((line.split(":", 1)[1].split() for line in open("/proc/cpuinfo") if line.startswith("flags")), [])
    return model, sorted(flag for flag in flags if flag.startswith("avx"))


def run(bench):
    s = bench.settings
    if os.geteuid() != 0:
        say("W9: skipped: it makes network namespaces, which needs root")
        return
    wanted = [tool for tool in ("fetch", "curl", "wget2", "aria2c") if bench.wants(tool)]
    if not _install(bench, wanted):
        return
    folder = bench.work / "w9"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shaper = ""
    netem = _has_netem()
    if not netem:
        shaper = str(folder / "w9_shaper")
        built = subprocess.run(["cc", "-O2", "-o", shaper, str(bench.helpers / "w9_shaper.c"), "-lnetfilter_queue"],
                               capture_output=True, text=True)
        if built.returncode != 0:
            sys.stderr.write(built.stderr)
            say("W9: skipped: scripts/bench.d/w9_shaper.c did not build")
            return
    limit = min(120, s.run_limit)
    network, server = Network(bench, shaper), Server(bench, folder / "nginx")
    stop = _stopper(network, server)
    atexit.register(stop)
    model, avx = _cpu()
    results = {"context": {"cpu_model": model, "avx_flags": avx, "cores": len(os.sched_getaffinity(0)),
                           "shaper": "tc netem (HTB class per address)" if netem else
                           "w9_shaper (NFQUEUE, held at ingress; kernel without sch_netem)",
                           "rate": f"{'HTB' if netem else 'tc tbf'} on the server end's egress",
                           "limit_s": limit, "rounds": s.rounds, "quick": s.quick,
                           "fetch_args": os.environ.get("W9_FETCH_ARGS", "")},
               "rows": {}}
    try:
        network.create()
        # W9_ROWS=W9b,W9c: only the rows whose names start so (for working on one).
        picked = [p for p in os.environ.get("W9_ROWS", "").split(",") if p]
        all_rows = [row for row in rows(s.quick) if not picked or any(row.name.startswith(p) for p in picked)]
        network.shape(all_rows[0])
        if not server.start():
            return
        say(f"W9: namespaces {SERVER_NS} ({', '.join(SERVERS)}) and {CLIENT_NS} ({CLIENT}), one veth pair; "
            f"shaper: {results['context']['shaper']}; nginx on :80 and :443 (TLS, h2); limit {limit} s a run; "
            f"CPU {model} ({' '.join(avx) or 'no avx'})")
        for round_number in range(1, s.rounds + 1):
            for row in all_rows:
                if not _run_row(bench, row, round_number, network, server, folder, limit, results):
                    return
    finally:
        stop()
        atexit.unregister(stop)
    _report(bench, all_rows, results)


def _stopper(network, server):
    def stop():
        server.stop()
        network.destroy()
    return stop


def _run_row(bench, row, round_number, network, server, folder, limit, results):
    lists = _write_lists(folder, row)
    tools = _tools(bench, row, lists, server.cert, folder / "out")
    network.shape(row)
    ok, measured = network.verify(row)
    # A loaded 2-core machine can hold a ping late once (seen: a mean of 100 ms for 80 ms, while a
    # build ran): check twice more before stopping W9, which a real shaping fault fails every time.
    for _ in range(2):
        if ok:
            break
        say(f"{row.name} round {round_number}: shaper check missed ({measured}); checking again")
        time.sleep(2)
        ok, measured = network.verify(row)
    rate = f", {row.rate_mbit} Mbit/s link (tbf)" if row.rate_mbit else ""
    say(f"{row.name} round {round_number}: {row.count} × {row.size} B over {row.hosts} hosts, RTT {row.rtt_ms} ms"
        f"{rate}, loss {row.loss:.1%} each way; shaper checked: {measured}")
    if not ok:
        say(f"W9: the shaper does not give {row.name}'s round trips: stopping W9")
        return False
    entry = results["rows"].setdefault(row.name, {"row": dataclasses.asdict(row), "floor_s": row.floor_s(),
                                                  "ping": [], "loss_seen": [], "runs": {}})
    entry["ping"].append(measured)
    for tool in run_rotated(round_number, tools):
        r = _run(bench, row, tool, round_number, server, folder, limit)
        entry["runs"].setdefault(tool.name, []).append(r)
        _say_run(row, tool.name, r)
    loss = network.loss_seen(row)
    entry["loss_seen"].append(loss)
    if loss is not None and row.loss:
        say(f"{row.name} round {round_number}: the shapers dropped {loss:.2%} of the packets "
            f"(configured {row.loss:.1%})")
    return True


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _ratios(runs, tool, peer, key):
    """Per round: the peer's KEY ÷ the tool's (a speed ratio: above 1, batchfetch was faster)."""
    mine = {r["round"]: r[key] for r in runs.get(tool, []) if r[key]}
    theirs = {r["round"]: r[key] for r in runs.get(peer, []) if r[key]}
    return [theirs[n] / mine[n] for n in sorted(mine) if n in theirs]


def _report(bench, all_rows, results):
    lines = ["| W9 row | tool | wall s | healthy hosts done s (W9c) | connections | complete | records | "
             "peak RSS MB | speed ÷ curl | speed ÷ wget2 | ok runs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in all_rows:
        entry = results["rows"].get(row.name)
        if entry is None:
            continue
        runs = entry["runs"]
        key = "healthy_done_s" if row.faults else "wall_s"
        curl_name = "curl --parallel"
        for tool, rs in runs.items():
            wall = _median(r["wall_s"] for r in rs)
            killed = sum(1 for r in rs if r["exit"] == TIMED_OUT)
            wall_text = f"{wall:.2f}" + (f" ({killed} killed)" if killed else "")
            if row.floor_s() and wall:
                wall_text += f" ({wall / row.floor_s():.2f}× floor)"
            done = _median(r["healthy_done_s"] for r in rs)
            done_text = ""
            if row.faults:
                done_text = f"{done:.2f}" if done is not None else \
                    f"– ({_median(r['healthy_complete'] for r in rs):.0f}/{rs[0]['healthy']} by the end)"
            ratio_curl = ratio_wget2 = ""
            if tool.startswith("batchfetch"):
                by_curl = _ratios(runs, tool, curl_name, key)
                by_wget2 = _ratios(runs, tool, "wget2", key)
                ratio_curl = f"{statistics.median(by_curl):.2f}×" if by_curl else "–"
                ratio_wget2 = f"{statistics.median(by_wget2):.2f}×" if by_wget2 else "–"
            rss = _median(r["max_rss_kb"] for r in rs if r["max_rss_kb"])
            lines.append(f"| {row.name} | {tool} | {wall_text} | {done_text} | "
                         f"{_median(r['connections'] for r in rs):.0f} | "
                         f"{_median(r['complete'] for r in rs):.0f}/{row.count} | "
                         f"{_median(r['records'] for r in rs):.0f} | {f'{rss / 1024:.1f}' if rss else '–'} | "
                         f"{ratio_curl} | {ratio_wget2} | {sum(1 for r in rs if r['ok'])}/{len(rs)} |")
        if row.floor_s():
            lines.append(f"| {row.name} | link floor (bytes ÷ rate + RTT) | {row.floor_s():.2f} |" + "  |" * 8)
    table = "\n".join(lines) + "\n"
    model, avx = results["context"]["cpu_model"], results["context"]["avx_flags"]
    sys.stderr.write(f"\nW9 on {model} ({' '.join(avx)}), {results['context']['cores']} cores; "
                     f"{results['context']['shaper']}\n\n{table}\n")
    bench.out.mkdir(parents=True, exist_ok=True)
    (bench.out / "w9-results.json").write_text(json.dumps(results, indent=1))
    (bench.out / "w9-results.md").write_text(f"W9 on {model} ({' '.join(avx)})\n\n{table}")
