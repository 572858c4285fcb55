"""The summary of a run: medians per workload and tool, ratios to curl and to the libcurl floor
measured in the same run, the spread over rounds, and markdown tables.

write(RUNS.jsonl, CONTEXT.json, OUT.json) returns the markdown and writes the raw runs and medians to
OUT.json (and the per-round ratios to curl and to the floor, under "per_round"). RUNS.jsonl has one
object per measured run; CONTEXT.json describes the machine, dataset and settings. W6 (bodies saved
to files) has a floor of its own, the writing floor (scripts/bench.d/write_floor.c), and aria2c as a
peer.
"""
import json
import statistics

FLOOR = "libcurl floor (bare multi loop)"
WRITE_FLOOR = "libcurl writing floor (write(2) per file)"
SAVE = "batchfetch fetch --save-dir"
SAVE_2X = "batchfetch fetch --save-dir, 2× URLs"
JSONL = "batchfetch fetch, JSONL requests"
FIELDS_ALL = "batchfetch fetch --fields all"
FETCH_B = "batchfetch fetch (B)"  # --ab-binary / --ab-args (workloads.fetch_b): W1, W2, W3, W5, W7
SAVE_B = SAVE + " (B)"  # … and W6
# Each B row and its A.
AB_PAIRS = ((FETCH_B, "batchfetch fetch"), (SAVE_B, SAVE))
ORDER = ["batchfetch crawl --details", "batchfetch fetch", FETCH_B, JSONL, FIELDS_ALL, "batchfetch fetch --body none",
         "batchfetch fetch -o file",
         SAVE, SAVE_B, SAVE_2X, "batchfetch bench", "curl", "aria2c", "libcurl floor (bare multi loop)", WRITE_FLOOR,
         "wrk", "async-http-client", "aiohttp"]
# The rows that get per-round ratio lines, and (on the workloads with large bodies) the body cost table.
PAIRED = ["batchfetch fetch", FETCH_B, JSONL, FIELDS_ALL, "batchfetch fetch --body none", "batchfetch bench", SAVE,
          SAVE_B]
BODY_WORKLOADS = ["W2", "W5"]
MB_WORKLOADS = BODY_WORKLOADS + ["W6"]
# W6's targets (issue 26), ratios of fetch --save-dir in one run: to the writing floor, curl, aria2c.
W6_TARGETS = {"floor": 0.85, "curl": 1.5, "aria2c": 3.0}


def floor_of(workload):
    """The floor a workload's ratios divide by: W6 saves bodies to files, so its floor writes them too."""
    return WRITE_FLOOR if workload == "W6" else FLOOR


def bases(workload):
    """The rows each PAIRED row gets per-round ratios to, named: the floor, curl, and on W6 aria2c."""
    result = [("floor", floor_of(workload)), ("curl", "curl")]
    return result + [("aria2c", "aria2c")] if workload == "W6" else result
FIELDS = ("req_s", "cpu_us_per_req", "max_rss_mb", "mb_s", "requests", "body_mb_per_cpu_s")


def derive(run):
    requests = run.get("requests") or 0
    if run["exit"] != 0 or requests <= 0 or run["wall_s"] <= 0:
        return None
    cpu = run["user_s"] + run["sys_s"]
    req_s = requests / run["wall_s"]
    return {
        "req_s": req_s,
        "cpu_us_per_req": cpu * 1e6 / requests,
        "max_rss_mb": run["max_rss_kb"] / 1024,
        "mb_s": req_s * run["mean_body_bytes"] / 1e6,
        "requests": requests,
        # Body bytes handled per second of the client's CPU (user + sys), all its threads together.
        "body_mb_per_cpu_s": requests * run["mean_body_bytes"] / cpu / 1e6 if cpu > 0 else None,
    }


def medians(runs):
    groups = {}
    for run in runs:
        if run.get("kind", "load") != "load":
            continue
        key = (run["workload"], run["tool"])
        group = groups.setdefault(key, {"runs": 0, "failed": 0, "derived": []})
        group["runs"] += 1
        derived = derive(run)
        if derived is None:
            group["failed"] += 1
        else:
            group["derived"].append(derived)
    result = {}
    for (workload, tool), group in groups.items():
        entry = {"runs": group["runs"], "failed_runs": group["failed"]}
        for field in FIELDS:
            values = [d[field] for d in group["derived"] if d[field] is not None]
            entry[field] = statistics.median(values) if values else None
            entry[field + "_all"] = values
        result.setdefault(workload, {})[tool] = entry
    return result


def ratio(value, base, invert=False):
    if value is None or not base:
        return "–"
    return f"{value / base:.2f}×"


def fmt(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"


def spread(values, digits=0):
    """The range over rounds, e.g. `14,200–16,900`; one value when there was one round."""
    if not values:
        return "–"
    low, high = min(values), max(values)
    return fmt(low, digits) if len(values) == 1 else f"{fmt(low, digits)}–{fmt(high, digits)}"


def table(workload, tools, show_mb, show_requests=False, note=None):
    curl = tools.get("curl", {})
    floor = tools.get(floor_of(workload), {})
    lines = [f"### {workload}", ""]
    if note:
        lines += [note, ""]
    header = ("| tool |" + (" requests |" if show_requests else "")
              + " req/s | ×curl | ×floor | CPU µs/req | ×curl | ×floor | peak RSS MB |")
    rule = "|---|" + ("---:|" if show_requests else "") + "---:|---:|---:|---:|---:|---:|---:|"
    if show_mb:
        header += " MB/s | ×curl | ×floor |"
        rule += "---:|---:|---:|"
    lines += [header + " req/s over rounds | ok runs |", rule + "---:|---:|"]
    for tool in sorted(tools, key=lambda t: ORDER.index(t) if t in ORDER else len(ORDER)):
        m = tools[tool]
        row = (f"| {tool} |" + (f" {fmt(m['requests'])} |" if show_requests else "")
               + f" {fmt(m['req_s'])} | {ratio(m['req_s'], curl.get('req_s'))} | {ratio(m['req_s'], floor.get('req_s'))} "
               f"| {fmt(m['cpu_us_per_req'], 1)} | {ratio(m['cpu_us_per_req'], curl.get('cpu_us_per_req'))} "
               f"| {ratio(m['cpu_us_per_req'], floor.get('cpu_us_per_req'))} | {fmt(m['max_rss_mb'], 1)} |")
        if show_mb:
            row += f" {fmt(m['mb_s'])} | {ratio(m['mb_s'], curl.get('mb_s'))} | {ratio(m['mb_s'], floor.get('mb_s'))} |"
        row += f" {spread(m['req_s_all'])} | {m['runs'] - m['failed_runs']}/{m['runs']} |"
        lines.append(row)
    return "\n".join(lines)


def paired(runs, workload, tool, base):
    """Per-round ratios of `tool` to `base` on a workload: (req/s ratios, CPU/request ratios)."""
    by_round = {}
    for run in runs:
        if run.get("kind", "load") == "load" and run["workload"] == workload and run["tool"] in (tool, base):
            derived = derive(run)
            if derived is not None:
                by_round.setdefault(run["round"], {})[run["tool"]] = derived
    pairs = [r for _, r in sorted(by_round.items()) if tool in r and base in r]
    return ([p[tool]["req_s"] / p[base]["req_s"] for p in pairs],
            [p[tool]["cpu_us_per_req"] / p[base]["cpu_us_per_req"] for p in pairs])


def per_round(runs, summary):
    """Every PAIRED row's per-round ratios to curl and to the floor (B's also to A), for OUT.json."""
    result = {}
    for workload, tools in summary.items():
        for tool in PAIRED:
            if tool not in tools:
                continue
            for name, base in bases(workload) + [("A", a) for b, a in AB_PAIRS if tool == b]:
                rates, cpus = paired(runs, workload, tool, base)
                if rates:
                    result.setdefault(workload, {}).setdefault(tool, {})[name] = {
                        "req_s": rates, "cpu_per_req": cpus,
                        "req_s_median": statistics.median(rates), "cpu_per_req_median": statistics.median(cpus)}
    return result


def body_table(summary):
    """CPU per request and body bytes per CPU-second of each batchfetch fetch row on W2 and W5, the
    floor's and curl's for scale: what embedding bodies costs, as the difference between body modes."""
    rows = []
    for workload in BODY_WORKLOADS:
        tools = summary.get(workload, {})
        floor_cpu = tools.get(FLOOR, {}).get("cpu_us_per_req")
        for tool in ("batchfetch fetch", "batchfetch fetch --body none", "curl", FLOOR):
            m = tools.get(tool)
            if m is None or m["cpu_us_per_req"] is None:
                continue
            body = {"batchfetch fetch": "auto", "batchfetch fetch --body none": "none"}.get(tool, "dropped")
            rows.append(f"| {workload} | {tool} | {body} | {fmt(m['cpu_us_per_req'], 1)} | {ratio(m['cpu_us_per_req'], floor_cpu)} "
                        f"| {fmt(m['body_mb_per_cpu_s'])} | {spread(m['body_mb_per_cpu_s_all'])} |")
    if not rows:
        return None
    return "\n".join([
        "### Body cost: CPU per request and MB of body per CPU-second (W2 JSON, W5 HTML)", "",
        "user + sys of the whole client process (every thread); MB of body per CPU-second = requests × mean "
        "document size / (user + sys). The `fetch` rows differ only in the body mode.", "",
        "| workload | tool | body | CPU µs/req | ×floor | body MB per CPU-s | over rounds |",
        "|---|---|---|---:|---:|---:|---:|"] + rows)


def rss_line(tools):
    """W6: fetch --save-dir's peak RSS over W6's URLs and, when the memory runs ran, over twice as many."""
    one, two = tools.get(SAVE, {}), tools.get(SAVE_2X, {})
    if one.get("max_rss_mb") is None or two.get("max_rss_mb") is None:
        return None
    return (f"Peak RSS of `fetch --save-dir`: {one['max_rss_mb']:.1f} MB for {one['requests']:,.0f} files (median), "
            f"{two['max_rss_mb']:.1f} MB for {two['requests']:,.0f} ({two['max_rss_mb'] / one['max_rss_mb']:.2f}×).")


def emit_per_round(emit, what, rates, cpus):
    """A paragraph of per-round ratios (from `paired`) and their medians; nothing without rounds."""
    if rates:
        emit(f"{what}, per round: req/s " + ", ".join(f"{r:.2f}×" for r in rates) + "; CPU per request "
             + ", ".join(f"{c:.2f}×" for c in cpus)
             + f" (medians {statistics.median(rates):.2f}× and {statistics.median(cpus):.2f}×).")
        emit()


def write(runs_path, context_path, out_path):
    """The tables as markdown; the raw runs, medians and per-round ratios to OUT_PATH."""
    lines = []

    def emit(text=""):
        lines.append(f"{text}\n")

    with open(runs_path) as f:
        runs = [json.loads(line) for line in f if line.strip()]
    with open(context_path) as f:
        context = json.load(f)
    summary = medians(runs)
    if "cpu_model" in context:
        emit(f"CPU: {context['cpu_model']}; batchfetch's SIMD level: {context.get('simd', 'unknown')}\n")
    if "ab" in context:
        ab = context["ab"]
        emit(f"A/B: each `… (B)` row runs `{ab['binary']} fetch` with `{ab['args'] or 'no other flags'}` beside "
             f"its A row (`{context.get('batchfetch_binary', 'batchfetch')}`), in the same rounds.\n")
    emit(f"Medians of {context['rounds']} round(s); {context['concurrency']} in flight; nginx 1 worker on "
         f"127.0.0.1; dataset: {context['dataset']['source']}. MB/s counts body bytes only "
         f"(req/s × mean document size). wrk's req/s is its own count over its own duration (-d).")
    emit()
    w3 = context.get("w3", {})
    w5 = context.get("dataset", {}).get("w5", {})
    w6 = context.get("dataset", {}).get("w6", {})
    for workload in sorted(summary):
        note = None
        if workload == "W5" and "documents" in w5:
            note = (f"{w5['documents']:,} generated HTML pages ({w5['mean_bytes']:,.0f} B mean; quoted attributes, tabs, "
                    f"newlines, non-ASCII text) served as `{w5.get('content_type', 'text/html')}`: bodies that are not "
                    "JSON, embedded by `fetch` (--body auto) as JSON strings.")
        if workload == "W3" and "requests" in w3:
            note = (f"`batchfetch crawl --details` (list, {w3['categories']} category filters, {w3['drinks']:,} "
                    f"lookups: {w3['requests']:,} requests, {w3['mean_bytes']:,.0f} B mean) against the same "
                    f"{w3['requests']:,} URLs fetched flat. Server: {w3['server']}.")
        if workload == "W6" and "documents" in w6:
            note = (f"{w6['documents']:,} generated images ({w6['mean_bytes']:,.0f} B mean of binary bytes, 20–60 KB, "
                    f"a JPEG header) served as `{w6.get('content_type', 'image/jpeg')}`, each URL's body saved to its own "
                    "file in a fresh folder on the work folder's disk (as root, on a new ext4 made there for the "
                    "run) and checked (sha256 of every file) after the run. "
                    "×floor divides by the writing floor (scripts/bench.d/write_floor.c: the libcurl floor's loop, each "
                    "body written to its own file with write(2)). Targets for `fetch --save-dir`, per round: "
                    + ", ".join(f"≥ {v:g}× {k if k != 'floor' else 'the writing floor'}" for k, v in W6_TARGETS.items())
                    + ".")
        if workload == "W7":
            note = ("Distinct ~1 KB JSON bodies POSTed to nginx (body read and dropped, a 12-byte JSON answer): "
                    "`fetch -i w7.jsonl` (one `{\"url\",\"method\":\"POST\",\"body\"}` request a line), curl "
                    "--parallel over a config of the same requests, the floor POSTing the same bytes. MB/s counts the "
                    "request bodies; each run is checked against nginx's log (every request once, its body's length).")
        emit(table(workload, summary[workload], show_mb=(workload in MB_WORKLOADS + ["W7"]),
                   show_requests=(workload == "W3"), note=note))
        emit()
        # The table's × floor divides medians taken over rounds minutes apart; on a shared machine the
        # floor itself moves by ±30% between rounds. Ratios within a round compare runs seconds apart.
        for tool in PAIRED:
            for name, base in bases(workload):
                what = {"floor": "the writing floor" if workload == "W6" else "the libcurl floor"}.get(name, name)
                emit_per_round(emit, f"`{tool.removeprefix('batchfetch ')}` against {what}",
                               *paired(runs, workload, tool, base))
        if workload == "W6":
            rss = rss_line(summary[workload])
            if rss:
                emit(rss)
                emit()
        for b, a in AB_PAIRS:
            emit_per_round(emit, f"`{b.removeprefix('batchfetch ')}` against `{a.removeprefix('batchfetch ')}` (A)",
                           *paired(runs, workload, b, a))
        if workload == "W1":
            emit_per_round(emit, "`fetch, JSONL requests` against `fetch` of the same URLs as a list",
                           *paired(runs, "W1", JSONL, "batchfetch fetch"))
        if workload == "W3":
            for base, how in (("batchfetch fetch", "records to /dev/null"),
                              ("batchfetch fetch -o file", "records to a file, as the crawl writes its output")):
                emit_per_round(emit, f"`crawl --details` against `fetch` of the same URLs ({how})",
                               *paired(runs, "W3", "batchfetch crawl --details", base))
    if "skipped" in w3:
        emit(f"W3 (the crawl shape) skipped: {w3['skipped']}.")
        emit()
    body = body_table(summary)
    if body:
        emit(body)
        emit()
    memory = [r for r in runs if r.get("kind") == "memory"]
    if memory:
        emit("### Memory scale: batchfetch fetch from stdin")
        emit()
        emit("| URLs | stdin read by | order | exit | wall s | req/s | CPU µs/req | peak RSS MB |")
        emit("|---:|---|---|---:|---:|---:|---:|---:|")
        for r in memory:
            req_s = r["urls"] / r["wall_s"] if r["wall_s"] else 0
            cpu = (r["user_s"] + r["sys_s"]) * 1e6 / r["urls"]
            emit(f"| {r['urls']:,} | `{'fetch' if r.get('input', 'pipe') == 'pipe' else 'fetch ' + r['input']}` "
                 f"| {r['order']} | {r['exit']} | {r['wall_s']:.1f} | {req_s:,.0f} "
                 f"| {cpu:.1f} | {r['max_rss_kb'] / 1024:.1f} |")
        emit()
    with open(out_path, "w") as f:
        json.dump({"context": context, "medians": summary, "runs": runs, "per_round": per_round(runs, summary)},
                  f, indent=1)
    return "".join(lines)
