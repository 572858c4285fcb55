"""The on-disk cache's workload (issue 17): runs with `--only …,cache`; W3's files must exist, so
crawl must be among --only too:

    flock /tmp/bench.lock scripts/bench --only crawl,cache --no-memory

1. W3 through the cache, against the same nginx, --rounds times from an empty cache: a cold crawl
   (fetches and stores every response), a warm one (--max-age: every entry fresh, nothing sent),
   whose rate must reach MIN_SPEEDUP × the cold crawl's (median over the rounds), and a refresh
   crawl (--cache-mode refresh: every request conditional, and nginx must answer every one with
   304, which only a conditional request can get). Every crawl's output must equal the cold one's
   byte for byte. The JSON gives each mode's median wall and CPU.
2. CACHE_URLS distinct URLs (default 1,000,000; 20,000 with --quick) over W1's documents stored by
   `fetch --cache`, then answered offline (--cache-mode only): time per URL (lookup, record and
   all) and the database's size on disk.

Results: OUT/cache-results.json and lines on stderr. Every run is bounded by count and by time;
all traffic goes to nginx on 127.0.0.1.
"""
import filecmp
import json
import os
import shutil
import statistics
import sys

from . import checks
from .bench import say
from .memory import urls as memory_urls
from .process import run_timed

MIN_SPEEDUP = 5
MODES = {"cold": [], "warm": ["--max-age", "86400"], "refresh": ["--cache-mode", "refresh"]}


class CacheFailed(Exception):
    """The cache's workload failed: the bench stops with exit 1, as it did when cache.sh returned 1."""


def _timed(bench, name, limit, command):
    """COMMAND under the limit, its output to LOGS/cache-NAME.*; its Usage, or CacheFailed."""
    logs = bench.logs
    with open(logs / f"cache-{name}.stdout", "wb") as out, open(logs / f"cache-{name}.stderr", "wb") as err:
        usage = run_timed(command, limit, stdout=out, stderr=err)
    if usage.exit != 0:
        say(f"cache: {name} failed (exit {usage.exit})")
        tail = (logs / f"cache-{name}.stderr").read_text(errors="replace").splitlines()[-3:]
        sys.stderr.write("".join(f"bench:   | {line}\n" for line in tail))
        raise CacheFailed(name)
    return usage


def _stats(path):
    """The "cache" object of a --stats file: hits, revalidated, misses, …"""
    return json.loads(path.read_text())["cache"]


def run(bench):
    if not bench.w3_ready:
        say("cache: skipped: W3's files are not ready (put crawl among --only)")
        return
    s = bench.settings
    folder, n, c = bench.work / "cache", bench.w3_requests, s.concurrency
    crawl = [bench.batchfetch, "crawl", "--details", "--base-url", f"{bench.w3_base}/api/json/v1/", "-c", str(c),
             "--format", "ndjson", "--progress", "never", "--cache", str(folder / "w3")]
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    # --rounds rounds, each from an empty cache: cold, warm, refresh. The verdict is on the median of
    # the rounds' warm/cold ratios: on a shared 2-core machine one pair moves by ±30%.
    walls = {mode: [] for mode in MODES}
    cpus = {mode: [] for mode in MODES}
    speedups, revalidated = [], n
    for round_number in range(1, s.rounds + 1):
        shutil.rmtree(folder / "w3", ignore_errors=True)
        for mode, extra in MODES.items():
            # Each timed crawl writes a new file, as W3's runs do: overwriting the last round's
            # 109 MB output would add ~20 ms of freeing its pages (O_TRUNC) to rounds 2 and on.
            output, stats = folder / f"w3-{mode}.ndjson", folder / f"w3-{mode}.stats.json"
            output.unlink(missing_ok=True)
            stats.unlink(missing_ok=True)
            usage = _timed(bench, f"w3-{mode}", s.run_limit, [*crawl, *extra, "-o", str(output), "--stats", str(stats)])
            cpu = round((usage.user_s + usage.sys_s) * 1e6 / n, 1)
            walls[mode].append(round(usage.wall_s, 3))
            cpus[mode].append(cpu)
            counts = _stats(stats)
            say(f"cache: W3 round {round_number} {mode} crawl: {n} results in {usage.wall_s:.2f} s "
                f"({n / usage.wall_s:.0f} results/s, {cpu} µs CPU each, {usage.max_rss_kb // 1024} MB); "
                f"hits {counts['hits']}, revalidated {counts['revalidated']}, misses {counts['misses']}")
            if not filecmp.cmp(folder / "w3-cold.ndjson", output, shallow=False):
                say(f"cache: FAILED: the {mode} crawl's output differs from the cold one's")
                raise CacheFailed(mode)
        complete, output = checks.w3_crawl_of(folder / "w3-cold.ndjson", folder / "w3-cold.stats.json",
                                              bench.work / "w3" / "expect.json")(None)
        (bench.logs / "cache-w3-cold.check").write_text(output)
        if not complete:
            say(f"cache: FAILED: the cold crawl is incomplete (see {bench.logs}/cache-w3-cold.check)")
            raise CacheFailed("check")
        cold, warm = walls["cold"][-1], walls["warm"][-1]
        speedups.append(round(cold / warm, 1) if warm > 0 else 0)
        this_revalidated = _stats(folder / "w3-refresh.stats.json")["revalidated"]
        if this_revalidated != n:
            revalidated = this_revalidated
    speedup = statistics.median(speedups)
    say(f"cache: warm crawl {speedup:g}× the cold crawl's rate, median of rounds "
        f"({' '.join(f'{x:g}' for x in speedups)}; at least {MIN_SPEEDUP}× wanted); "
        f"refresh crawls: {revalidated} of {n} requests answered 304")
    verdict = "ok" if speedup >= MIN_SPEEDUP else f"FAILED: speed-up below {MIN_SPEEDUP}×"
    if revalidated != n:
        verdict = f"FAILED: {revalidated} of {n} revalidated"
    say(f"cache: W3 verdict: {verdict}")

    count = int(os.environ.get("CACHE_URLS") or (20_000 if s.quick else 1_000_000))
    say(f"cache: storing {count} distinct URLs (fetch --cache), then answering them offline")
    # A list file, as W1 reads its URLs: the offline run then measures the cache, not the pipe.
    with open(folder / "urls.txt", "wb") as f:
        for chunk in memory_urls(bench, count):
            f.write(chunk)
    fetch = [bench.batchfetch, "fetch", "-i", str(folder / "urls.txt"), "-o", "/dev/null", "--cache", str(folder / "urls")]
    store = _timed(bench, "store", s.memory_limit, [*fetch, "-c", str(c), "--stats", str(folder / "store.stats.json")])
    offline = _timed(bench, "offline", s.memory_limit,
                     [*fetch, "--cache-mode", "only", "--stats", str(folder / "offline.stats.json")])
    # du -sb: the apparent size of every file and folder.
    size = sum(os.path.getsize(d) + sum(os.path.getsize(os.path.join(d, f)) for f in files)
               for d, _, files in os.walk(folder / "urls"))
    hits = _stats(folder / "offline.stats.json")["hits"]
    per_url = round(offline.wall_s * 1e6 / count, 1)
    cpu_per_url = round((offline.user_s + offline.sys_s) * 1e6 / count, 1)
    say(f"cache: {count} URLs stored in {store.wall_s:.2f} s; offline: {hits} hits in {offline.wall_s:.2f} s, "
        f"{per_url} µs wall and {cpu_per_url} µs CPU per URL, {offline.max_rss_kb // 1024} MB peak; "
        f"database {size // 1048576} MB ({size // count} B per URL)")
    (bench.out / "cache-results.json").write_text(json.dumps({
        "w3_requests": n, "w3_wall_s": {mode: statistics.median(walls[mode]) for mode in MODES},
        "w3_cpu_us_per_result": {mode: statistics.median(cpus[mode]) for mode in MODES},
        "w3_warm_speedup": speedup, "w3_warm_speedup_rounds": speedups,
        "w3_refresh_revalidated": revalidated, "w3_verdict": verdict,
        "urls": count, "store_wall_s": round(store.wall_s, 3), "offline_wall_s": round(offline.wall_s, 3),
        "offline_hits": hits, "offline_us_per_url": per_url, "offline_cpu_us_per_url": cpu_per_url,
        "offline_max_rss_kb": offline.max_rss_kb, "database_bytes": size,
    }, indent=1))
    shutil.rmtree(folder / "urls", ignore_errors=True)
    (folder / "urls.txt").unlink(missing_ok=True)
