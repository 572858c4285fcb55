"""scripts/bench's run, start to end: settings, work folder, tools, datasets, servers, workloads,
results; and what is left to stop or delete on the way out, also on failure or Ctrl-C."""
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from . import cache, dataset, memory, profile, report, rounds, settings, tools, w3files, w4, w7, w8, w9
from .bench import Bench, say
from .nginx import Nginx


def main(argv, usage):
    s = settings.parse(argv, usage)
    root = Path(__file__).resolve().parents[3]
    os.chdir(root)
    if os.environ.get("BENCH_DIR"):
        work, temporary = Path(os.environ["BENCH_DIR"]), False
        work.mkdir(parents=True, exist_ok=True)
    else:
        work, temporary = Path(tempfile.mkdtemp(prefix="batchfetch-bench.")), True
    work = work.resolve()
    out = Path(s.out).resolve() if s.out else work / "results"
    bench = Bench(settings=s, root=root, work=work, out=out, work_is_temp=temporary)
    bench.logs.mkdir(parents=True, exist_ok=True)
    bench.runs.write_text("")
    if s.simd:
        # Inherited by every child; only batchfetch reads it (its body kernels' level, capped at the CPU's).
        os.environ["BATCHFETCH_SIMD"] = s.simd
    signal.signal(signal.SIGTERM, _terminate)
    nginx = Nginx(bench)
    try:
        _run(bench, nginx)
    except KeyboardInterrupt:
        return 130
    except cache.CacheFailed:
        return 1
    finally:
        nginx.stop()
        rounds.w6_delete(bench)  # W6's saved files (GBs) go also from a kept work folder
        if bench.work_is_temp:
            _remove_dataset(bench.work)
    return 0


def _terminate(number, frame):
    raise SystemExit(143)


def _remove_dataset(work):
    """A temporary work folder keeps its results but not its 200 MB dataset."""
    for name in ("www", "w3", "nginx"):
        shutil.rmtree(work / name, ignore_errors=True)
    for pattern in ("*.urls", "*.paths", "*.curl", "*.jsonl", "w7.bodies", "w3-*.ndjson", "w3-*.json", "*.aria2",
                    "w6.*"):
        for path in work.glob(pattern):
            path.unlink(missing_ok=True)


def _run(bench, nginx):
    s = bench.settings
    bench.load_start = report.load_average()
    say(f"work folder {bench.work}; load average {bench.load_start} on {len(os.sched_getaffinity(0))} cores")
    tools.install(bench)
    tools.build(bench, w3files.current(bench))
    if not os.access(bench.batchfetch, os.X_OK):
        say(f"no batchfetch binary at {bench.batchfetch} (drop --no-build?)")
        sys.exit(1)
    tools.capabilities(bench)
    tools.request_fields(bench)
    dataset.make(bench)
    if not bench.workload_wanted("W3"):
        bench.w3_skip = "not among --workloads"
        say("W3: skipped: not among --workloads")
    elif bench.wants("crawl"):
        w3files.make(bench)
    else:
        say("W3: skipped: crawl not among --only")
    nginx.start()
    dataset.write_lists(bench, "w1", s.w1_count, s.w1_docs)
    dataset.write_lists(bench, "w2", s.w2_count, s.w2_docs)
    dataset.write_lists(bench, "w5", s.w5_count, s.w5_docs)
    bench.w6_saved = bench.work / "w6-saved"
    try:
        bench.w6_deleted_at = int((bench.work / "w6.deleted-at").read_text().strip())
    except (OSError, ValueError):
        bench.w6_deleted_at = 0
    if bench.workload_wanted("W6"):
        dataset.write_w6_lists(bench, "w6", s.w6_count, s.w6_docs)
        if bench.w6_saved.is_dir():
            say(f"W6: deleting files left by an interrupted run in {bench.w6_saved}")
            rounds.w6_delete(bench)
        rounds.w6_check_space(bench)
    if bench.workload_wanted("W7"):
        bench.w7_mean = w7.write_lists(bench, s.w7_count)
    if bench.w3_ready:
        w3files.write_lists(bench)
    dataset.warm_up(bench)
    say(f"rounds: {s.rounds}; in flight: {s.concurrency}; W1 {s.w1_count} URLs × {bench.mean_bytes('w1'):.0f} B "
        f"({s.w1_docs} documents); W2 {s.w2_count} URLs × {bench.mean_bytes('w2'):.0f} B ({s.w2_docs} documents) "
        "(static files shaped like TheCocktailDB, not the replica)")
    if bench.workload_wanted("W5"):
        say(f"W5: {s.w5_count} URLs × {bench.mean_bytes('w5'):.0f} B of HTML, text/html ({s.w5_docs} pages)")
    if bench.workload_wanted("W6"):
        say(f"W6: {s.w6_count} URLs × {bench.mean_bytes('w6'):.0f} B of binary, image/jpeg ({s.w6_docs} images), "
            f"each saved to a file under {bench.w6_saved}")
    if bench.workload_wanted("W7"):
        say(f"W7: {s.w7_count} JSON bodies × {bench.w7_mean:.0f} B POSTed (one JSONL request a line; nginx logs each)")
    if s.workloads != settings.DEFAULT_WORKLOADS:
        say(f"workloads: {s.workloads} only")
    if bench.w3_ready:
        say(f"W3: crawl --details vs the same {bench.w3_requests} URLs flat (the replica's documents at scale "
            f"{s.w3_scale}, as files)")
    rounds.run_workloads(bench)
    if w4.wanted(bench):
        w4.run(bench)
    if bench.workload_wanted("W8") and bench.wants("fetch"):
        w8.run(bench)
    if bench.workload_wanted("W9"):
        w9.run(bench)
    if bench.wants("cache"):
        cache.run(bench)
    memory.run_scale(bench)
    memory.run_w6(bench)
    profile.run(bench)
    nginx.stop()
    report.write_context(bench)
    report.summarize(bench)
