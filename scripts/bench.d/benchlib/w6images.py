"""W6 (bodies saved to files): the images, and the check that a run saved them all.

make(DIR, DOCS) writes DOCS images as DIR/www/images/media/drink/<d>.jpg (d = 0 … DOCS-1), served by
the bench's nginx at the real API's thumbnail paths as image/jpeg; their sha256 digests to
DIR/w6.sha256 (line d is image d's); and a "w6" entry in DIR/meta.json (the other workloads' entries
are kept).

check(OUT_DIR, COUNT, DOCS, DIR/w6.sha256) judges a measured run of COUNT URLs (URL i names image
i % DOCS) saved into OUT_DIR: exactly COUNT files, one per URL, each holding image i % DOCS byte for
byte (sha256), nothing else in the folder (no temporary or control file left behind). A file is
named after its URL's index: `<i>.jpg` (curl's and aria2c's `output` / `out` names, the writing
floor's) or `<i>-<d>.jpg` (batchfetch's default `{index}-{name}`, where the name is `<d>.jpg`).

The images are binary, not image data: a JPEG header (SOI and a JFIF APP0 segment), random bytes,
and the end-of-image marker; 20–60 KB each, uniformly (mean ~40 KB, the size of the real API's
thumbnails). Deterministic (a fixed seed of its own), so every run serves the same bytes.
"""
import hashlib
import json
import os
import random
import re

# SOI, then an APP0 segment (length 16): "JFIF\0", version 1.1, no density units, 1×1, no thumbnail.
HEADER = bytes.fromhex("ffd8ffe000104a46494600010100000100010000")
TRAILER = bytes.fromhex("ffd9")
NAME = re.compile(r"^(\d+)(?:-(\d+))?\.jpg$")


def make(out, docs):
    rng = random.Random(26)
    folder = f"{out}/www/images/media/drink"
    os.makedirs(folder, exist_ok=True)
    total, sums = 0, []
    for d in range(docs):
        size = rng.randint(20 * 1024, 60 * 1024)
        body = HEADER + rng.randbytes(size - len(HEADER) - len(TRAILER)) + TRAILER
        total += len(body)
        sums.append(hashlib.sha256(body).hexdigest())
        with open(f"{folder}/{d}.jpg", "wb") as f:
            f.write(body)
    with open(f"{out}/w6.sha256", "w") as f:
        f.write("\n".join(sums) + "\n")
    with open(f"{out}/meta.json") as f:
        meta = json.load(f)
    meta["w6"] = {"documents": docs, "mean_bytes": total / max(docs, 1),
                  "shape": "/images/media/drink/<d>.jpg?n=<i>", "content_type": "image/jpeg"}
    with open(f"{out}/meta.json", "w") as f:
        json.dump(meta, f)
    return total / max(docs, 1)


def check(folder, count, docs, sums_path):
    """(ok, output) for the run's LOG.check: what is wrong, or how many files were right."""
    problem = _problem(folder, count, docs, sums_path)
    if problem:
        return False, f"w6: {problem}\n"
    return True, f"{count} files, every one image i % {docs} byte for byte\n"


def _problem(folder, count, docs, sums_path):
    with open(sums_path) as f:
        sums = f.read().split()
    if len(sums) != docs:
        return f"{sums_path} has {len(sums)} digests, {docs} expected"
    seen, problems = set(), []
    names = os.listdir(folder)
    for name in names:
        match = NAME.match(name)
        if match is None:
            problems.append(f"a file that names no URL: {name}")
            continue
        i = int(match.group(1))
        if i >= count or i in seen:
            problems.append(f"{name}: index out of range or saved twice")
            continue
        seen.add(i)
        if match.group(2) is not None and int(match.group(2)) != i % docs:
            problems.append(f"{name}: URL {i} names image {i % docs}")
            continue
        with open(os.path.join(folder, name), "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        if digest != sums[i % docs]:
            problems.append(f"{name}: sha256 {digest[:12]}…, image {i % docs}'s is {sums[i % docs][:12]}…")
    missing = count - len(seen)
    if missing:
        first = sorted(set(range(count)) - seen)[:5]
        problems.append(f"{missing} of {count} URLs have no file (first: {', '.join(map(str, first))})")
    if problems:
        return f"{len(names)} files in {folder}; " + "; ".join(problems[:8]) + (
            f"; and {len(problems) - 8} more" if len(problems) > 8 else "")
    return None
