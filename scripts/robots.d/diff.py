#!/usr/bin/env python3
"""Differential test of BatchFetchRobots against Google's matcher (PyPI fast-robotstxt).

Usage: diff.py ROBOTS_CHECK SPEC_CASES_JSON [--triples N] [--seed S]

Every case of google/robotstxt-spec-test and N generated (robots.txt, agent, URL) triples go to both
matchers. Where they disagree, the disagreement must be one that docs/ROBOTS.md lists, and is
recognised by a classifier that changes the oracle's input in the one way the listed difference
names and checks that the oracle then agrees:

  robots-txt-allowed   the URL is /robots.txt, which RFC 9309 always allows and Google's does not
  percent-encoding     RFC 9309 §2.2.2 normal form: the oracle agrees once pattern and URL are given
                       normalised (non-ASCII, what a URI cannot hold, a URL's own * and $ and a
                       lone % escaped, unreserved escapes decoded, hex upper case), with the
                       escapes left masked from its decoder
  crawl-delay-value    a Crawl-delay value that is not a plain non-negative decimal: ignored here,
                       read as 0 (or its numeric prefix) by the oracle; it agrees once those lines
                       are blanked
  crawl-delay-position a Crawl-delay line among a group's User-agent lines: the group's here; the
                       oracle gives it only to the agents named above it, and agrees once it is
                       moved after the group's last User-agent line
  crawl-delay-inherit  a named group without Crawl-delay: none here, the * group's in the oracle

Exits 1 on any other disagreement (the first ones are printed), 0 otherwise.
"""

import argparse
import base64
import json
import random
import re
import subprocess
import sys

from robotstxt import robots as oracle_module

from generate import generated

LIB = oracle_module._lib
UNMATCHED_AGENT = b"zzzNoSuchAgentzzz"


def oracle(body, agent, url):
    """(allowed, matching line, crawl delay) from Google's matcher, on raw bytes."""
    matcher = LIB.robots_matcher_create()
    try:
        allowed = LIB.robots_allowed_by_robots(matcher, body, len(body), agent, len(agent), url, len(url))
        line = LIB.robots_matching_line(matcher)
        delay = LIB.robots_get_crawl_delay(matcher) if LIB.robots_has_crawl_delay(matcher) else None
        return bool(allowed), line, delay
    finally:
        LIB.robots_matcher_free(matcher)


# -- RFC 9309 normal form, written again here (not shared with the Swift code) --------------------

UNRESERVED = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
HEX = b"0123456789ABCDEFabcdef"
MASK = b"\x01"  # stands for "%" in the escapes the oracle is shown, so that it cannot decode them


def normal_form(data, is_path):
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        if c == 0x25 and i + 2 < len(data) and data[i + 1] in HEX and data[i + 2] in HEX:
            value = int(data[i + 1:i + 3], 16)
            if value in UNRESERVED:
                out.append(value)
            else:
                out += MASK + b"%02X" % value
            i += 3
            continue
        escape = c >= 0x80 or c == 0x25 or c <= 0x20 or c in b'\x7f"<>\\^`{|}' \
            or (is_path and c in b"*$") or (not is_path and c == 0x24 and i + 1 < len(data))
        if escape:
            out += MASK + b"%02X" % c
        else:
            out.append(c)
        i += 1
    return bytes(out)


RULE_KEYS = (b"allow", b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")
OTHER_KEYS = (b"user-agent", b"useragent", b"user agent")
DELAY_KEYS = (b"crawl-delay", b"crawldelay", b"crawl delay")
WHITE = b" \t\n\r\x0b\x0c"


def split_lines(body):
    """Lines with their ends, as Google's matcher splits them (CR, LF, CRLF); a byte order mark (or
    the start of one) that the body begins with is a "line" of its own, with no end, that no key
    reads."""
    bom = 0
    while bom < 3 and bom < len(body) and body[bom] == b"\xef\xbb\xbf"[bom]:
        bom += 1
    lines = re.findall(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", body[bom:])
    return ([body[:bom]] if bom else []) + lines


def key_value(content):
    """(key, value start, value end) of a line's content, as Google's matcher reads it, or None."""
    stripped = content.strip(WHITE)
    if not stripped:
        return None
    offset = content.index(stripped)
    colon = stripped.find(b":")
    if colon < 0:
        blank = re.search(rb"[ \t]", stripped)
        if not blank or re.search(rb"[ \t]", stripped[blank.start():].strip(WHITE)):
            return None
        colon = blank.start()
    key = stripped[:colon].strip(WHITE)
    if not key:
        return None
    rest = stripped[colon + 1:]
    value = rest.strip(WHITE)
    start = offset + colon + 1 + (rest.index(value) if value else 0)
    return key.lower(), start, start + len(value)


def rewrite_lines(body, change):
    """body with change(key, value) -> new value applied to each line's value (lines kept)."""
    out = []
    for line in split_lines(body):
        end = len(line.rstrip(b"\r\n"))
        content, tail = line[:end], line[end:]
        nul = content.find(b"\0")
        hash_at = content.find(b"#")
        cut = min(x for x in (nul, hash_at, len(content)) if x >= 0)
        parsed = key_value(content[:cut])
        if parsed:
            key, start, stop = parsed
            new = change(key, content[start:stop])
            if new is not None:
                content = content[:start] + new + content[stop:]
        out.append(content + tail)
    return b"".join(out)


def normalised_robots(body):
    def change(key, value):
        if key.startswith(OTHER_KEYS):
            return None
        if key.startswith(RULE_KEYS):
            return normal_form(value, is_path=False)
        return None
    return rewrite_lines(body, change)


def normalised_url(url):
    match = re.match(rb"^([a-z]+://[^/?#]*)([^#]*)(#.*)?$", url)
    if not match:
        return url
    return match.group(1) + normal_form(match.group(2), is_path=True)


PLAIN_DECIMAL = re.compile(rb"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$")


def without_invalid_delays(body):
    """body with each Crawl-delay line whose value is not a plain decimal made a comment."""
    out = []
    for line in split_lines(body):
        end = len(line.rstrip(b"\r\n"))
        content = line[:end]
        cut = min(x for x in (content.find(b"\0"), content.find(b"#"), len(content)) if x >= 0)
        parsed = key_value(content[:cut])
        if parsed and parsed[0].startswith(DELAY_KEYS) and not PLAIN_DECIMAL.match(content[parsed[1]:parsed[2]]):
            content = b"#"
        out.append(content + line[end:])
    return b"".join(out)


def line_kind(line):
    content = line.rstrip(b"\r\n")
    cut = min(x for x in (content.find(b"\0"), content.find(b"#"), len(content)) if x >= 0)
    parsed = key_value(content[:cut])
    if not parsed:
        return None
    key = parsed[0]
    if key.startswith(OTHER_KEYS):
        return "agent"
    if key.startswith(RULE_KEYS):
        return "rule"
    if key.startswith(DELAY_KEYS):
        return "delay"
    return None


def delays_after_agents(body):
    """body with each Crawl-delay line that stands among a group's User-agent lines moved after the
    last of them (to where the group's rules begin), other lines kept in order."""
    out = []
    held = []
    in_agents = False
    for line in split_lines(body):
        kind = line_kind(line)
        if kind == "delay" and in_agents:
            held.append(line if line.endswith((b"\n", b"\r")) else line + b"\n")
            continue
        if kind == "rule":
            out += held
            held = []
            in_agents = False
        elif kind == "agent":
            in_agents = True
        out.append(line)
    if held and out and not out[-1].endswith((b"\n", b"\r")):
        out[-1] += b"\n"
    return b"".join(out + held)


def robots_path(url):
    match = re.match(rb"^[a-z]+://[^/?#]*([^#]*)", url)
    path = match.group(1) if match else url
    return normal_form(path or b"/", is_path=True).replace(MASK, b"%") == b"/robots.txt"


# -- comparison ----------------------------------------------------------------------------------

def compare(body, agent, url, ours):
    """(verdict class or None, delay class or None, ...): None where both agree, else the class that
    explains it, or "UNEXPLAINED"."""
    allowed, line, delay = oracle(body, agent, url)
    ours_line = ours["line"] if ours["line"] is not None else None
    verdict_class = None
    if ours["allowed"] != allowed or (ours_line is not None and ours_line != line):
        if ours["allowed"] and ours_line is None and robots_path(url):
            verdict_class = "robots-txt-allowed"
        else:
            n_allowed, n_line, _ = oracle(normalised_robots(body), agent, normalised_url(url))
            agrees = n_allowed == ours["allowed"] and (ours_line is None or n_line == ours_line)
            verdict_class = "percent-encoding" if agrees else "UNEXPLAINED"
    delay_class = None
    if ours["crawl_delay"] != delay:
        # Each classifier works on the input the previous ones made.
        cleaned = without_invalid_delays(body)
        moved = delays_after_agents(cleaned)
        moved_delay = oracle(moved, agent, url)[2]
        if cleaned != body and oracle(cleaned, agent, url)[2] == ours["crawl_delay"]:
            delay_class = "crawl-delay-value"
        elif moved != cleaned and moved_delay == ours["crawl_delay"]:
            delay_class = "crawl-delay-position"
        elif ours["crawl_delay"] is None and ours["group"] == "agent" \
                and moved_delay == oracle(moved, UNMATCHED_AGENT, url)[2]:
            delay_class = "crawl-delay-inherit"
        else:
            delay_class = "UNEXPLAINED"
    return verdict_class, delay_class, (allowed, line, delay)


def spec_cases(path):
    with open(path, encoding="utf-8") as handle:
        for case in json.load(handle)["cases"]:
            body = case["robotstxt"].encode() if "robotstxt" in case else base64.b64decode(case["robotstxt_base64"])
            yield body, [(e["agent"], e["url"]) for e in case["expectations"]]


def run(check, batches):
    """Feeds the batches to robots-check and yields (body, queries, results)."""
    process = subprocess.Popen([check], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines = [json.dumps({"robots_base64": base64.b64encode(body).decode(),
                         "queries": [{"agent": a, "url": u} for a, u in queries]}) for body, queries in batches]
    output, _ = process.communicate("\n".join(lines) + "\n")
    if process.returncode != 0:
        sys.exit(f"robots-diff: robots-check failed ({process.returncode})")
    answers = output.splitlines()
    if len(answers) != len(batches):
        sys.exit(f"robots-diff: robots-check answered {len(answers)} of {len(batches)} lines")
    for (body, queries), answer in zip(batches, answers):
        yield body, queries, json.loads(answer)["results"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("check")
    parser.add_argument("spec")
    parser.add_argument("--triples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=52)
    args = parser.parse_args()

    sets = {"spec-test": list(spec_cases(args.spec)),
            "generated": list(generated(random.Random(args.seed), args.triples))}
    unexplained = []
    for name, batches in sets.items():
        compared = 0
        classes = {}
        for body, queries, results in run(args.check, batches):
            for (agent, url), ours in zip(queries, results):
                if "error" in ours:
                    unexplained.append((name, body, agent, url, ours, None))
                    continue
                compared += 1
                verdict_class, delay_class, theirs = compare(body, agent.encode(), url.encode(), ours)
                for kind, found in (("verdict", verdict_class), ("crawl-delay", delay_class)):
                    if found is not None:
                        classes[(kind, found)] = classes.get((kind, found), 0) + 1
                        if found == "UNEXPLAINED":
                            unexplained.append((name, body, agent, url, ours, theirs))
        summary = ", ".join(f"{kind} {found}: {n}" for (kind, found), n in sorted(classes.items())) or "none"
        print(f"robots-diff: {name}: {compared} queries compared; disagreements: {summary}")
    for name, body, agent, url, ours, theirs in unexplained[:10]:
        print(f"UNEXPLAINED ({name}) agent={agent} url={url}\n  ours={ours}\n  google={theirs}\n"
              f"  robots.txt={body!r}", file=sys.stderr)
    if unexplained:
        print(f"robots-diff: {len(unexplained)} unexplained disagreements", file=sys.stderr)
        sys.exit(1)
    print("robots-diff: every disagreement is a listed RFC 9309 / Google difference")


if __name__ == "__main__":
    main()
