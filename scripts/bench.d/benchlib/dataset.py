"""The dataset (documents.py, w6images.py), the URL lists every tool reads, the warm-up."""
import json
import os
import shutil
import subprocess

from . import documents, w6images
from .bench import say

# The paths each list's URLs name: PREFIX, then document FIRST + d (W2: `w2-d`), as nginx maps them.
LISTS = {
    "w1": ("/api/json/v1/1/lookup.php?i=", 11000),
    "w2": ("/api/json/v1/1/search.php?s=", None),
    "w5": ("/pages/page.php?p=", 0),
}
W6_PATH = "/images/media/drink/"


def make(bench):
    """Generates the documents unless the work folder holds them at these counts. A dataset from
    before W5 has no "w5" entry: it is made again (W1's and W2's bytes unchanged). W6's images have
    an entry of their own, made alone when only it is missing or differs."""
    s, work = bench.settings, bench.work
    meta = _read_meta(work)
    if tuple(meta.get(w, {}).get("documents") for w in ("w1", "w2", "w5")) == (s.w1_docs, s.w2_docs, s.w5_docs):
        say(f"reusing the dataset in {work}/www")
    else:
        say(f"generating the dataset: {s.w1_docs} lookup documents (~2.2 KB), {s.w2_docs} search documents "
            f"(~64 KB), {s.w5_docs} HTML pages (~64 KB)")
        shutil.rmtree(work / "www", ignore_errors=True)
        documents.write(work, s.w1_docs, s.w2_docs, s.w5_docs)
    images = work / "www/images/media/drink"
    if ((work / "w6.sha256").is_file() and images.is_dir()
            and _read_meta(work).get("w6", {}).get("documents") == s.w6_docs):
        say(f"reusing W6's images in {images}")
    else:
        say(f"generating W6's images: {s.w6_docs} files of 20–60 KB of binary bytes")
        shutil.rmtree(work / "www/images", ignore_errors=True)
        (work / "w6.sha256").unlink(missing_ok=True)
        w6images.make(work, s.w6_docs)
    # nginx's workers run as an unprivileged user: they must be able to read the files.
    readable(work / "www")
    os.chmod(work, os.stat(work).st_mode | 0o011)


def _read_meta(work):
    try:
        return json.loads((work / "meta.json").read_text())
    except (OSError, ValueError):
        return {}


def readable(folder):
    """chmod -R go+rX: files readable, folders searchable by nginx's workers."""
    for directory, _, files in os.walk(folder):
        os.chmod(directory, os.stat(directory).st_mode | 0o055)
        for name in files:
            path = os.path.join(directory, name)
            os.chmod(path, os.stat(path).st_mode | 0o044)


def write_lists(bench, name, count, docs):
    """For one workload: the URL list (batchfetch, floors, peers), curl's config (-K) and wrk's paths.
    With more URLs than documents, URL i names document i % DOCS and adds `&n=i` (nginx serves the
    file by the first parameter), so every URL is distinct: batchfetch fetches a repeated URL once."""
    prefix, first = LISTS[name]
    urls, paths, curl = [], [], []
    for i in range(count):
        d = i % docs
        path = prefix + (f"w2-{d}" if first is None else str(first + d)) + (f"&n={i}" if count > docs else "")
        urls.append(f"{bench.base}{path}\n")
        paths.append(f"{path}\n")
        curl.append(f'url = "{bench.base}{path}"\noutput = "/dev/null"\n')
    # The same URLs as JSON request lines (W1's JSONL row).
    jsonl = [f'{{"url":"{url[:-1]}"}}\n' for url in urls]
    for extension, lines in (("urls", urls), ("paths", paths), ("curl", curl), ("jsonl", jsonl)):
        (bench.work / f"{name}.{extension}").write_text("".join(lines))


def write_w6_lists(bench, name, count, docs):
    """W6's lists: URL i is image i % DOCS at the real API's thumbnail path, made distinct by `?n=i`.
    Every tool saves URL i under a name that holds i (the check maps it back): batchfetch by its
    default template, {index}-{name} (`<i>-<d>.jpg`); curl and aria2c by a name given with each URL
    (`<i>.jpg`: curl's `output` line with --output-dir, aria2c's `out=` option), since the URL's last
    segment, `<d>.jpg`, repeats and -O would make ten transfers write one file; the writing floor
    names `<i>.jpg` itself. NAME.urls feeds batchfetch and the floor, NAME.curl curl (-K), NAME.aria2
    aria2c (-i, each URL followed by its indented `out=` line)."""
    urls, curl, aria2 = [], [], []
    for i in range(count):
        url = f"{bench.base}{W6_PATH}{i % docs}.jpg?n={i}"
        urls.append(f"{url}\n")
        curl.append(f'url = "{url}"\noutput = "{i}.jpg"\n')
        aria2.append(f"{url}\n  out={i}.jpg\n")
    for extension, lines in (("urls", urls), ("curl", curl), ("aria2", aria2)):
        (bench.work / f"{name}.{extension}").write_text("".join(lines))


def _curl_config(config, concurrency):
    """curl --parallel over a config given on stdin, bodies dropped; fails the bench on an error."""
    subprocess.run(["curl", "-sS", "--no-progress-meter", "--fail", "--parallel", "--parallel-max",
                    str(concurrency), "-K", "-"], input=config.encode(), check=True)


def warm_up(bench):
    """Untimed: every document into the page cache before the first timed run. The first DOCS URLs
    of each list name every document once. W1's documents are warmed also when W1 does not run: W4
    and the memory-scale runs read them. (curl 7.88 draws its --parallel progress meter despite -s;
    --no-progress-meter stops it.)"""
    s, work = bench.settings, bench.work

    def head(name, lines):
        with open(work / name) as f:
            return "".join(line for _, line in zip(range(lines), f))

    configs = [head("w1.curl", 2 * s.w1_docs), head("w2.curl", 2 * s.w2_docs)]
    if bench.workload_wanted("W5"):
        configs.append(head("w5.curl", 2 * s.w5_docs))
    if bench.workload_wanted("W6"):
        configs.append("".join(f'url = "{url}"\noutput = "/dev/null"\n'
                               for url in head("w6.urls", s.w6_docs).splitlines()))
    if bench.w3_ready:
        configs.append((work / "w3.curl").read_text())
    for config in configs:
        _curl_config(config, s.concurrency)
