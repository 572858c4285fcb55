"""Checks that a run did the work: each takes the run's values and returns check(log) → (ok, output).

The log prefix names the run's LOG.stdout; W3's and W6's checks are the helpers' own
(scripts/bench.d/w3.py, w6.py), run as programs, their output kept in LOG.check.
"""
import re
import subprocess
import sys
from pathlib import Path


def printed_count(values):
    """The floors print how many transfers ended with a 2xx status: it must be the URL count."""
    def check(log):
        printed = Path(f"{log}.stdout").read_text().rstrip("\n")
        if printed == str(values["n"]):
            return True, ""
        return False, f"{printed} transfers ok, {values['n']} expected\n"
    return check


def status_lines(values):
    """curl -w '%{http_code}\\n': one 2xx line per transfer (its exit status would not tell a skip)."""
    def check(log):
        text = Path(f"{log}.stdout").read_text(errors="replace")
        ok = len(re.findall(r"^2[0-9][0-9]$", text, re.MULTILINE))
        if ok == values["n"]:
            return True, ""
        return False, f"{ok} transfers with a 2xx status, {values['n']} expected\n"
    return check


def w3_fetch(values):
    """`batchfetch fetch --stats` over W3's URLs: every record ok."""
    return _helper("w3.py", "check-fetch", f"{values['work']}/w3-fetch.stats.json", values["n"])


def w3_crawl(values):
    """`batchfetch crawl --details`: the whole catalogue, in order, every drink looked up once."""
    work = values["work"]
    return _helper("w3.py", "check-crawl", f"{work}/w3-crawl.ndjson", f"{work}/w3-crawl.stats.json",
                   f"{work}/w3/expect.json")


def w6_files(values):
    """W6: one file per URL in the run's folder, each its image byte for byte (sha256), nothing else."""
    return _helper("w6.py", "check", values["dir"], values["n"], values["w6_docs"], f"{values['work']}/w6.sha256")


def _helper(script, *args):
    helpers = Path(__file__).resolve().parent.parent

    def check(log):
        done = subprocess.run([sys.executable, "-B", str(helpers / script), *map(str, args)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return done.returncode == 0, done.stdout.decode(errors="replace")
    return check
