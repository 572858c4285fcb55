"""Memory scale: batchfetch fetch over many URLs from stdin, whose peak RSS must not grow with them
(issue 7, part 2); and with W6, fetch --save-dir over twice W6's URLs."""
from .bench import say
from .dataset import write_w6_lists
from .process import run_timed
from .rounds import run_tool, values, w6_settle
from .workloads import SAVE


def urls(bench, count):
    """COUNT distinct URLs (a query string) over a few documents, made on the fly in chunks, so no
    million-line file is written and nginx serves from its cache."""
    distinct, base = bench.settings.memory_distinct, f"{bench.base}/api/json/v1/1/lookup.php"
    for start in range(0, count, 10_000):
        yield "".join(f"{base}?i={11000 + i % distinct}&n={i}\n"
                      for i in range(start, min(count, start + 10_000))).encode()


def run_scale(bench):
    """Both ways of reading stdin, a plain pipe and `-i -` (they take different paths in fetch), in
    completion order and, once fetch has --order, input order."""
    s = bench.settings
    if not s.memory or not bench.wants("fetch"):
        return
    orders = ["completion"]
    if bench.can["fetch --order"]:
        orders.append("input")
    else:
        say("memory: input order skipped: batchfetch fetch has no --order flag yet (completion order only)")
    for count in s.memory_urls:
        for order in orders:
            for stdin in ("pipe", "-i -"):
                _run(bench, count, order, stdin)


def _run(bench, count, order, stdin):
    s = bench.settings
    args = [bench.batchfetch, "fetch", "-c", str(s.concurrency), "-o", "/dev/null"]
    if stdin != "pipe":
        args += ["-i", "-"]
    # Once --order exists its default is input order (issue 6): name the order explicitly.
    if bench.can["fetch --order"]:
        args += ["--order", order]
    say(f"memory: {count} URLs from stdin ({stdin}), {order} order")
    log = bench.logs / f"memory-{count}-{order}-{stdin.replace(' ', '').replace('-', '')}.stderr"
    with open(log, "wb") as stderr:
        usage = run_timed(args, s.memory_limit, stderr=stderr, feed=urls(bench, count))
    bench.recorder.append({
        "kind": "memory", "urls": count, "order": order, "input": stdin, "exit": usage.exit,
        "wall_s": round(usage.wall_s, 3), "user_s": round(usage.user_s, 3), "sys_s": round(usage.sys_s, 3),
        "max_rss_kb": usage.max_rss_kb})
    say(f"memory: {count} URLs ({stdin}), {order} order: exit {usage.exit}, {usage.wall_s:.2f} s, "
        f"peak RSS {usage.max_rss_kb // 1024} MB")


def run_w6(bench):
    """fetch --save-dir over twice W6's URLs (over the same images), once, as a row of W6's table next
    to the rounds' rows: its peak RSS must match theirs."""
    s = bench.settings
    if not (s.memory and bench.wants("fetch") and bench.workload_wanted("W6") and bench.can["fetch --save-dir"]):
        return
    count = 2 * s.w6_count
    write_w6_lists(bench, "w6x2", count, s.w6_docs)
    say(f"memory: fetch --save-dir over {count} images (twice W6's)")
    w6_settle(bench)
    run_tool(bench, "W6", SAVE, 1, values(bench, "W6", count, bench.mean_bytes("w6"), "w6x2"),
             folder=bench.w6_saved / "memory-fetch", row="batchfetch fetch --save-dir, 2× URLs")

