"""Checks that a run did the work: each takes the run's values and returns check(log) → (ok, output).

The log prefix names the run's LOG.stdout; W3's and W6's checks are w3crawl's and w6images' own;
the output of each goes to LOG.check.
"""
import json
import re
from pathlib import Path

from . import w3crawl, w6images


def printed_count(values):
    """The floors print how many transfers ended with a 2xx status: it must be the URL count."""
    def check(log):
        printed = Path(f"{log}.stdout").read_text().rstrip("\n")
        if printed == str(values["n"]):
            return True, ""
        return False, f"{printed} transfers ok, {values['n']} expected\n"
    return check


def _ok_lines(values, pattern, what):
    """A check that the run printed one line matching `pattern` per transfer."""
    def check(log):
        text = Path(f"{log}.stdout").read_text(errors="replace")
        ok = len(re.findall(pattern, text, re.MULTILINE))
        if ok == values["n"]:
            return True, ""
        return False, f"{ok} {what}, {values['n']} expected\n"
    return check


def status_lines(values):
    """curl -w '%{http_code}\\n': one 2xx line per transfer (its exit status would not tell a skip)."""
    return _ok_lines(values, r"^2[0-9][0-9]$", "transfers with a 2xx status")


def w3_fetch(values):
    """`batchfetch fetch --stats` over W3's URLs: every record ok."""
    return _w3(w3crawl.check_fetch, f"{values['work']}/w3-fetch.stats.json", values["n"])


def w3_crawl(values):
    """`batchfetch crawl --details`: the whole catalogue, in order, every drink looked up once."""
    work = values["work"]
    return w3_crawl_of(f"{work}/w3-crawl.ndjson", f"{work}/w3-crawl.stats.json", f"{work}/w3/expect.json")


def w3_crawl_of(output, stats, expect):
    """w3_crawl's check of a crawl that wrote OUTPUT and STATS (the cache's crawls write their own)."""
    return _w3(w3crawl.check_crawl, output, stats, expect)


def warc_index(template, header=False):
    """A WARC row (issue 53): the index written beside the file has one line per URL, each a 200.
    wget's CDX starts with a header line (` CDX a b a m s k r M V g u`)."""
    def for_values(values):
        def check(log):
            path = Path(template.format(**values))
            try:
                lines = path.read_text(errors="replace").splitlines()
            except OSError as error:
                return False, f"warc: {error}\n"
            if header:
                lines = lines[1:]
            ok = sum(1 for line in lines if '"status": "200"' in line or " 200 " in line)
            if ok == values["n"] == len(lines):
                return True, ""
            return False, f"warc: {path.name} indexes {len(lines)} responses, {ok} of them 200; {values['n']} expected\n"
        return check
    return for_values


def w6_files(values):
    """W6: one file per URL in the run's folder, each its image byte for byte (sha256), nothing else."""
    def check(log):
        try:
            return w6images.check(values["dir"], values["n"], values["w6_docs"], f"{values['work']}/w6.sha256")
        except OSError as error:
            return False, f"w6: {error}\n"
    return check


def _w3(judge, *args):
    def check(log):
        try:
            judge(*args)
        except w3crawl.Incomplete as error:
            return False, f"w3: {error}\n"
        except (OSError, ValueError, KeyError) as error:
            return False, f"w3: {error!r}\n"
        return True, ""
    return check


def w4_stats(values):
    """W4's `fetch --stats`: every record ok, every response over PROTOCOL."""
    def judge(log):
        stats, n = json.loads(Path(values["stats"]).read_text()), values["n"]
        if stats["records"] != n or stats["ok"] != n or stats.get("protocols") != {values["protocol"]: n}:
            return (f"{stats['ok']} of {stats['records']} records ok ({n} expected), "
                    f"protocols {stats.get('protocols')}")
        return None
    return _judged(judge)


def w4_bench(values):
    """W4's `bench --json`: every request ok, every response over PROTOCOL."""
    def judge(log):
        report, n = json.loads(Path(f"{log}.stdout").read_text()), values["n"]
        if report["ok"] != n or report.get("protocols") != {values["protocol"]: n}:
            return f"{report['ok']} ok of {n}, protocols {report.get('protocols')}"
        return None
    return _judged(judge)


def _judged(judge):
    """check(log) from judge(log) → what is wrong or None; a report it cannot read fails the check."""
    def check(log):
        try:
            problem = judge(log)
        except (OSError, ValueError, KeyError, TypeError) as error:
            problem = f"no report to check: {error!r}"
        return (False, f"{problem}\n") if problem else (True, "")
    return check


def w4_curl(values):
    """W4's curl -w '%{http_code} %{http_version}\\n': one 2xx line over HTTP/VERSION per transfer."""
    version = values["version"]
    return _ok_lines(values, rf"^2[0-9][0-9] {re.escape(version)}$",
                     f"transfers with a 2xx status over HTTP/{version}")


def w4_h2load(values):
    """h2load: every request done and succeeded, over the application protocol ALPN names."""
    def check(log):
        text = Path(f"{log}.stdout").read_text(errors="replace")
        n = values["n"]
        done = f"requests: {n} total, {n} started, {n} done, {n} succeeded, 0 failed"
        if not any(line.startswith(done) for line in text.splitlines()):
            return False, "".join(f"{line}\n" for line in text.splitlines() if line.startswith("requests:"))
        if f"Application protocol: {values['alpn']}" not in text.splitlines():
            return False, "".join(f"{line}\n" for line in text.splitlines()
                                  if line.startswith("Application protocol"))
        return True, ""
    return check
