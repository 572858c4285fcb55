"""W4's nginx: W1's documents over TLS (ALPN offers h2 and http/1.1) and over cleartext HTTP/2 (h2c,
prior knowledge), each on a loopback port of its own, with a self-signed certificate made at run time.

One worker, keep-alive that never runs out. Its access log ($connection, $ssl_session_reused) gives
each run's connections and TLS handshakes, full and resumed (w4.py). The lists are the first COUNT
of W1's URLs on each port, for batchfetch, the floor and h2load (.urls) and curl (.curl).
"""
import os
import shutil
import subprocess
import sys
import time

from .bench import say
from .nginx import free_port

LOCATIONS = """
        root {work}/www;
        location = /api/json/v1/1/lookup.php {{ try_files /lookup/$arg_i.json =404; }}
        location / {{ return 404; }}"""

CONFIG = """worker_processes 1;
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format w4 '$connection $ssl_session_reused $server_protocol $status';
    access_log {dir}/access.log w4;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    ssl_session_cache shared:W4:1m;
    types {{ application/json json; }}
    default_type application/octet-stream;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    server {{
        listen 127.0.0.1:{tls_port} ssl http2 backlog=4096;
        ssl_certificate {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;{locations}
    }}
    server {{
        listen 127.0.0.1:{h2c_port} http2 backlog=4096;{locations}
    }}
}}
"""


class W4Server:
    """W4's nginx in WORK/w4: start() (False when it did not start), stop() (idempotent)."""

    def __init__(self, bench, count):
        self.bench = bench
        self.count = count
        self.dir = bench.work / "w4"
        self.cert = self.dir / "cert.pem"
        self.access_log = self.dir / "access.log"
        self.process = None

    def start(self):
        folder = self.dir
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "tmp").mkdir(parents=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2",
                        "-keyout", str(folder / "key.pem"), "-out", str(self.cert)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        # nginx's workers run as an unprivileged user.
        if (folder / "key.pem").exists():
            os.chmod(folder / "key.pem", os.stat(folder / "key.pem").st_mode | 0o044)
        tls_port, h2c_port = free_port(), free_port()
        locations = LOCATIONS.format(work=self.bench.work)
        (folder / "nginx.conf").write_text(CONFIG.format(dir=folder, tls_port=tls_port, h2c_port=h2c_port,
                                                         locations=locations))
        self.process = subprocess.Popen([self.bench.nginx, "-e", f"{folder}/error.log", "-p", str(folder),
                                         "-c", f"{folder}/nginx.conf"], stdin=subprocess.DEVNULL)
        probe = ["curl", "-sf", "--cacert", str(self.cert), "-o", "/dev/null",
                 f"https://127.0.0.1:{tls_port}/api/json/v1/1/lookup.php?i=11000"]
        tries = 0
        while subprocess.run(probe, stdin=subprocess.DEVNULL).returncode != 0:
            tries += 1
            if tries > 50 or self.process.poll() is not None:
                log = folder / "error.log"
                sys.stderr.write(log.read_text(errors="replace") if log.exists() else "")
                say("W4: nginx did not start")
                self.stop()
                return False
            time.sleep(0.1)
        self._write_lists(tls_port, h2c_port)
        say(f"W4: nginx serving W1's documents over TLS on 127.0.0.1:{tls_port} and h2c on 127.0.0.1:{h2c_port}")
        return True

    def _write_lists(self, tls_port, h2c_port):
        # The first COUNT of W1's URLs: W1's full list (200,000) would make each TLS run, and
        # libcurl 7.88's connection per h2c request, last minutes.
        base = self.bench.base
        with open(self.bench.work / "w1.urls") as f:
            paths = [line.rstrip("\n").removeprefix(base) for _, line in zip(range(self.count), f)]
        for name, origin in (("tls", f"https://127.0.0.1:{tls_port}"), ("h2c", f"http://127.0.0.1:{h2c_port}")):
            urls = [origin + path for path in paths]
            (self.dir / f"{name}.urls").write_text("".join(f"{url}\n" for url in urls))
            (self.dir / f"{name}.curl").write_text("".join(f'url = "{url}"\noutput = "/dev/null"\n' for url in urls))

    def log_size(self):
        """Where the access log ends now: the next run's lines start there."""
        try:
            return self.access_log.stat().st_size
        except OSError:
            return 0

    def log_lines(self, start):
        with open(self.access_log, "rb") as f:
            f.seek(start)
            return f.read().decode(errors="replace").splitlines()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
        self.process = None
