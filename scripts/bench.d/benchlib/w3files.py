"""W3's documents: the replica's responses saved as files, served by the same nginx.

W3 needs TheCocktailDB's shape (list → categories → drinks), so its documents are the replica's
(scale --w3-scale, result cap off so that every drink is listed and looked up: with the free key's
cap of 100 a scale-32 crawl would look up 1,100 of 20,320 drinks). Once made, nginx serves them
from files: the replica is a Swift server that would take a core from the client on a 2-core
machine, and W3 should measure the client, as W1 and W2 do.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from . import w3crawl
from .bench import say
from .dataset import readable
from .process import run_timed


def current(bench):
    """Whether the work folder holds W3's files for this scale (a BENCH_DIR keeps them)."""
    folder = bench.work / "w3"
    if not (folder / "meta.json").is_file() or not (folder / "expect.json").is_file():
        return False
    return str(bench.w3_meta().get("scale")) == bench.settings.w3_scale


class _Replica:
    """cocktaildb-replica on a port of its own, for as long as W3's files are being made."""

    def __init__(self, bench):
        folder = bench.work / "w3"
        self.stdout, self.stderr = folder / "replica.stdout", folder / "replica.stderr"
        with open(self.stdout, "wb") as out, open(self.stderr, "wb") as err:
            self.process = subprocess.Popen([bench.replica, "--port", "0", "--scale", bench.settings.w3_scale,
                                             "--result-cap", "0"], stdout=out, stderr=err,
                                            stdin=subprocess.DEVNULL)
        self.base = ""

    def wait_listening(self):
        for _ in range(600):
            lines = [line for line in self.stdout.read_text(errors="replace").splitlines()
                     if line.startswith("listening ")]
            if lines:
                self.base = lines[0].removeprefix("listening ")
                break
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        if not self.base:
            sys.stderr.write(self.stderr.read_text(errors="replace"))
            return False
        # The replica binds loopback unless told otherwise; checked, since it is about to be crawled.
        if not (self.base.startswith("http://127.0.0.1:") and self.base.endswith("/api/json/v1/1/")):
            say(f"the replica listens on {self.base}, not on 127.0.0.1")
            return False
        return True

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


def make(bench):
    """Crawls the replica once (crawl --details), derives every URL the crawl requests
    (w3crawl.paths), and saves each response as a file named after its URL. The measured
    crawls then run against those files only: a URL not among them is a 404 that fails the crawl.
    Sets bench.w3_ready, or bench.w3_skip to the reason."""
    bench.w3_ready, bench.w3_skip = False, ""
    replica = None

    def skip(reason):
        bench.w3_skip = reason
        say(f"W3: skipped: {reason}")
        if replica is not None:
            replica.stop()

    if not bench.can["crawl"]:
        return skip("batchfetch crawl not available yet")
    folder = bench.work / "w3"
    s = bench.settings
    if current(bench):
        say(f"W3: reusing the crawl's files in {folder}/www")
    else:
        if not os.access(bench.replica, os.X_OK):
            return skip(f"no replica binary at {bench.replica} (drop --no-build?)")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        say(f"W3: making the crawl's files: the replica at scale {s.w3_scale}, no result cap, crawled once")
        replica = _Replica(bench)
        try:
            if not replica.wait_listening():
                return skip("the replica did not start")
            problem = _save(bench, replica.base, folder)
            if problem:
                return skip(problem)
        finally:
            replica.stop()
        problem = _write_meta(folder, s.w3_scale)
        if problem:
            return skip(problem)
    readable(folder / "www")
    os.chmod(folder, os.stat(folder).st_mode | 0o011)
    meta = bench.w3_meta()
    bench.w3_requests = meta["requests"]
    bench.w3_ready = True
    say(f"W3: {meta['requests']} requests: 1 list, {meta['categories']} category filters, {meta['drinks']} lookups; "
        f"{meta['mean_bytes']:.0f} B mean")


def _save(bench, base, folder):
    """The crawl of the replica, its paths, every response saved; a reason to skip W3, or None."""
    s = bench.settings
    with open(folder / "replica-crawl.stderr", "wb") as err:
        crawled = run_timed([bench.batchfetch, "crawl", "--details", "--base-url", base, "-c", str(s.concurrency),
                             "--format", "ndjson", "-o", str(folder / "replica-crawl.ndjson"), "--progress", "never"],
                            s.run_limit, stderr=err)
    if crawled.exit != 0:
        _tail(folder / "replica-crawl.stderr")
        return "the crawl of the replica failed"
    try:
        w3crawl.paths(folder / "replica-crawl.ndjson", folder / "replica.stderr", folder)
    except (w3crawl.Incomplete, OSError) as error:
        say(f"w3: {error}")
        return "the crawl of the replica missed part of the catalogue"
    # lookup.php?i=11000 is saved as www/api/json/v1/1/lookup.php/i=11000; nginx maps it back.
    root = f"{folder}/www/api/json/v1/1/"
    config = "".join(f'url = "{base}{path}"\noutput = "{root}{path.replace("?", "/", 1)}"\n'
                     for path in (folder / "paths").read_text().splitlines())
    (folder / "save.curl").write_text(config)
    with open(folder / "save.stderr", "wb") as err:
        saved = subprocess.run(["curl", "-sS", "--no-progress-meter", "--fail", "--globoff", "--create-dirs",
                                "--parallel", "--parallel-max", str(s.concurrency), "-K", str(folder / "save.curl")],
                               stderr=err, stdin=subprocess.DEVNULL)
    if saved.returncode != 0:
        _tail(folder / "save.stderr")
        return "saving the replica's documents failed"
    return None


def _write_meta(folder, scale):
    expect = json.loads((folder / "expect.json").read_text())
    sizes = [os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(folder / "www") for f in files]
    if len(sizes) != expect["requests"]:
        say(f"{len(sizes)} files saved for {expect['requests']} URLs")
        return "the saved documents do not match the crawl"
    startup = (folder / "replica.stderr").read_text(errors="replace").splitlines()
    (folder / "meta.json").write_text(json.dumps({
        "scale": scale,
        "result_cap": 0,
        "replica": startup[0].split(";")[0] if startup else "",
        "requests": expect["requests"],
        "categories": len(expect["categories"]),
        "drinks": expect["drinks"],
        "mean_bytes": sum(sizes) / len(sizes),
        "total_bytes": sum(sizes),
    }, indent=1))
    return None


def _tail(path, lines=5):
    for line in path.read_text(errors="replace").splitlines()[-lines:]:
        print(f"bench:   | {line}", file=sys.stderr)


def write_lists(bench):
    """W3's URL list and curl config, from the paths the crawl requests, on nginx's W3 port."""
    base = f"{bench.w3_base}/api/json/v1/1/"
    paths = (bench.work / "w3" / "paths").read_text().splitlines()
    (bench.work / "w3.urls").write_text("".join(f"{base}{path}\n" for path in paths))
    (bench.work / "w3.curl").write_text("".join(f'url = "{base}{path}"\noutput = "/dev/null"\n' for path in paths))
    if len(paths) != bench.w3_requests:
        say(f"W3: {len(paths)} URLs listed, {bench.w3_requests} expected")
        sys.exit(1)
