"""W7: distinct ~1 KB JSON bodies POSTed, one request per JSONL line (issue 39).

The same requests three ways: W7.jsonl for batchfetch (`{"url":…,"method":"POST","body":{…}}`,
the body given compact, so what batchfetch sends is byte for byte what the floor and curl send),
W7.urls and W7.bodies (line i: URL i and its body) for the floor, W7.curl for curl (one `next`
group per request: its URL, output, body and Content-Type). nginx answers /post with a small JSON
after reading the body, and logs each request's n and body length (nginx.py); the check reads the
lines a run added and wants each n exactly once with its body's length.
"""
import json
import random
import time
from pathlib import Path

WORDS = ("gin", "lime", "mint", "sugar", "soda", "rum", "bitters", "orange", "tonic", "ice", "shaken", "stirred",
         "coupe", "highball", "garnish", "zest", "splash", "dash", "café", "naïve")


def body(rng, i):
    """Request i's body: about 1 KB of JSON, distinct, with nested values, numbers and escapes."""
    notes = " ".join(rng.choice(WORDS) for _ in range(rng.randint(110, 150)))
    document = {
        "id": i, "sku": f"SKU-{i:07d}", "qty": rng.randint(1, 9), "price": round(rng.uniform(1, 99), 2),
        "tags": [rng.choice(WORDS) for _ in range(6)], "customer": {"name": f"Guest \"{i % 997}\"", "vip": i % 7 == 0},
        "notes": notes + "\t\\ end",
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def write_lists(bench, count):
    """W7's four lists in the work folder, and the bodies' mean length in bytes."""
    rng = random.Random(7)
    base = f"{bench.base}/post"
    jsonl, urls, bodies, curl = [], [], [], []
    total = 0
    for i in range(count):
        url = f"{base}?n={i}"
        text = body(rng, i)
        total += len(text.encode())
        jsonl.append(f'{{"url":"{url}","method":"POST","body":{text}}}\n')
        urls.append(f"{url}\n")
        bodies.append(f"{text}\n")
        quoted = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
        curl.append(f'url = "{url}"\noutput = "/dev/null"\ndata-binary = "{quoted}"\n'
                    f'header = "Content-Type: application/json"\n' + ("next\n" if i + 1 < count else ""))
    for extension, lines in (("jsonl", jsonl), ("urls", urls), ("bodies", bodies), ("curl", curl)):
        with open(bench.work / f"w7.{extension}", "w", encoding="utf-8") as f:
            f.write("".join(lines))
    return total / max(count, 1)


def log_check(values):
    """Each n once, with its body's length, in the lines nginx logged during the run. Made before
    the run (rounds.run_tool), so it knows where the log stood."""
    log = Path(values["work"]) / "nginx" / "w7.log"
    start = log.stat().st_size if log.exists() else 0
    count = values["n"]

    def check(_):
        expected = {}
        with open(Path(values["list"] + ".bodies"), "rb") as f:
            for i, line in enumerate(f):
                expected[i] = len(line) - 1
        lines = []
        deadline = time.monotonic() + 5
        while True:
            with open(log, "rb") as f:
                f.seek(start)
                lines = f.read().decode(errors="replace").splitlines()
            if len(lines) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        seen, problems = {}, []
        for line in lines:
            fields = line.split()
            if len(fields) != 3:
                problems.append(f"unreadable log line: {line[:80]}")
                continue
            n, length, status = fields
            if not n.isdigit():
                problems.append(f"a request without n: {line[:80]}")
                continue
            seen[int(n)] = seen.get(int(n), 0) + 1
            if status != "200" or not length.isdigit() or int(length) != expected.get(int(n), -1):
                problems.append(f"n={n}: status {status}, body {length} bytes, {expected.get(int(n))} sent")
        missing = [n for n in range(count) if n not in seen]
        repeated = [n for n, times in seen.items() if times > 1]
        if missing:
            problems.append(f"{len(missing)} requests never reached nginx (first: n={missing[0]})")
        if repeated:
            problems.append(f"{len(repeated)} requests reached nginx more than once (first: n={repeated[0]})")
        if problems:
            return False, "\n".join(problems[:10]) + "\n"
        return True, f"{count} POSTs logged once each with their bodies' lengths\n"
    return check
