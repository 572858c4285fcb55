"""nginx for W1, W2, W3, W5, W6: one worker, static files, on 127.0.0.1.

One worker, keep-alive that never runs out during a run, no access log, its own temp/pid/log
files. tcp_nopush is off: with it on (TCP_CORK around sendfile), 0.2-0.7% of 64 KB responses took
40 ms more (a delayed-ACK timer) for every client alike (curl: 141 of W5's 20,000), a stall of the
server's making that only a client keeping input order pays for, in memory held behind it. Two routes map TheCocktailDB's query-string URLs onto the static files, a third W5's
page.php?p=N onto its HTML pages (text/html, as a site serves them), a fourth W6's images at their
URLs' paths (image/jpeg; the query that makes each URL distinct is ignored), a fifth W7's POSTs
(the body read and dropped, a small JSON answer, each request's n and body length in w7.log); W3's files (named
after their URLs' query strings, as saved from the replica) have a port of their own.
"""
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from .bench import say

CONFIG = """worker_processes 1;
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush off;
    tcp_nodelay on;
    keepalive_timeout 300s;
    keepalive_requests 100000000;
    types {{ application/json json; text/html html; image/jpeg jpg; }}
    default_type application/octet-stream;
    log_format w7 '$arg_n $content_length $status';
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {work}/www;
        location = /api/json/v1/1/lookup.php {{ try_files /lookup/$arg_i.json =404; }}
        location = /api/json/v1/1/search.php {{ try_files /search/$arg_s.json =404; }}
        location = /pages/page.php {{ try_files /page/$arg_p.html =404; }}
        location ^~ /images/media/drink/ {{ }}
        location = /robots.txt {{ default_type text/plain; }}
        location = /post {{
            access_log {dir}/w7.log w7;
            client_max_body_size 1m;
            client_body_buffer_size 16k;
            default_type application/json;
            return 200 '{{"ok":true}}\n';
        }}
        location / {{ return 404; }}
    }}{w3_server}
}}
"""

# $args is the raw query string, so filter.php?c=Coffee%20%2F%20Tea is the file
# filter.php/c=Coffee%20%2F%20Tea; an empty query would name the folder itself.
W3_SERVER = """
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {work}/w3/www;
        default_type application/json;
        location /api/json/v1/1/ {{
            if ($args = "") {{ return 404; }}
            try_files $uri/$args =404;
        }}
        location / {{ return 404; }}
    }}"""

# The probes go straight to 127.0.0.1, whatever http_proxy says.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


ROBOTS_TXT = """User-agent: *
Disallow: /admin/
Disallow: /private/
Disallow: /*.php$
Allow: /api/json/v1/1/
Disallow: /pages/draft
Disallow: /images/media/drink/*.png

User-agent: otherbot
Disallow: /
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def content_type(url):
    """The Content-Type nginx serves URL with, or None when it does not serve it (2xx)."""
    try:
        with _opener.open(url, timeout=5) as response:
            response.read()
            return response.headers.get("Content-Type", "")
    except (urllib.error.URLError, OSError):
        return None


def version(nginx):
    done = subprocess.run([nginx, "-v"], capture_output=True, text=True)
    return (done.stderr + done.stdout).strip().split("nginx/", 1)[-1]


class Nginx:
    """The bench's nginx: started with its config, stopped on exit (also on failure or Ctrl-C)."""

    def __init__(self, bench):
        self.bench = bench
        self.process = None

    def start(self):
        bench = self.bench
        work, folder = bench.work, bench.work / "nginx"
        port = free_port()
        bench.base = f"http://127.0.0.1:{port}"
        w3_server = ""
        if bench.w3_ready:
            w3_port = free_port()
            bench.w3_base = f"http://127.0.0.1:{w3_port}"
            w3_server = W3_SERVER.format(port=w3_port, work=work)
        (folder / "tmp").mkdir(parents=True, exist_ok=True)
        # For `--ab-args "--robots obey"`: rules that allow every URL of the workloads, so that the
        # cost of reading and matching them is what a run measures.
        (work / "www").mkdir(parents=True, exist_ok=True)
        (work / "www" / "robots.txt").write_text(ROBOTS_TXT)
        (folder / "nginx.conf").write_text(CONFIG.format(dir=folder, work=work, port=port, w3_server=w3_server))
        self.process = subprocess.Popen([bench.nginx, "-e", f"{folder}/error.log", "-p", str(folder),
                                         "-c", f"{folder}/nginx.conf"], stdin=subprocess.DEVNULL)
        probe = f"{bench.base}/api/json/v1/1/lookup.php?i=11000"
        tries = 0
        while content_type(probe) is None:
            tries += 1
            if tries > 50 or self.process.poll() is not None:
                log = folder / "error.log"
                sys.stderr.write(log.read_text(errors="replace") if log.exists() else "")
                say("nginx did not start")
                sys.exit(1)
            time.sleep(0.1)
        say(f"nginx {version(bench.nginx)} serving {work}/www on {bench.base} (pid {self.process.pid})")
        served = [("W5", "/pages/page.php?p=0", "text/html", "W5's pages"),
                  ("W6", "/images/media/drink/0.jpg?n=0", "image/jpeg", "W6's images")]
        for workload, path, expected, what in served:
            if bench.workload_wanted(workload):
                got = content_type(bench.base + path)
                if got != expected:
                    say(f"nginx does not serve {what} as {expected} (got '{got or ''}')")
                    sys.exit(1)
        if bench.w3_ready:
            if content_type(f"{bench.w3_base}/api/json/v1/1/list.php?c=list") is None:
                say("nginx does not serve W3's files")
                sys.exit(1)
            say(f"nginx serving W3's files ({work}/w3/www) on {bench.w3_base}")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
        self.process = None
