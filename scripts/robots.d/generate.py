"""The seeded generator of (robots.txt, agent, URL) triples for diff.py: robots.txt texts with
tricky patterns (wildcards, $, escapes of every kind, non-ASCII, octets a URI cannot hold, misspelt
keys, case, long paths, several groups and agents, CR/LF/CRLF, BOM, Crawl-delay values) and URLs
drawn mostly from their patterns."""

import re

AGENTS = ["foobot", "FooBot", "bar-bot", "baz_bot", "Qux", "batchfetch", "googlebot", "a", "B"]
PIECES = ["/", "/", "/", "a", "b", "ab", "fish", "x", ".php", ".html", "index.html", "index.htm", "-", "_", "~",
          "%41", "%61", "%7E", "%7e", "%2F", "%2f", "%2A", "%24", "%25", "%20", "%E3%83%84", "%e3%83%84", "ツ",
          "é", "%C3%A9", "?", "=", "&", "q", ";", ",", "+", "!", "@", "(", ")", "'", "%", "%zz", "A", "B", "Fish",
          "|", "^", "%7C", "{"]
PATTERN_ONLY = ["*", "*", "*", "$", "**", " "]


def piece(rng, pattern):
    if pattern and rng.random() < 0.12:
        return rng.choice(PATTERN_ONLY)
    return rng.choice(PIECES)


def pattern(rng):
    text = "/" if rng.random() < 0.85 else rng.choice(["", "*", "x", "$"])
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6])):
        text += piece(rng, True)
    if rng.random() < 0.02:
        text += "a" * rng.randint(100, 3000)
    if rng.random() < 0.15:
        text += "$"
    return text


def agent_line(rng):
    name = rng.choice(AGENTS + ["*", "*", "Other", "foo"])
    if name != "*" and rng.random() < 0.3:
        name = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in name)
    if rng.random() < 0.2:
        name += rng.choice(["/1.0", " Images", "/2.1 (+http://x)", "*", " ", "1", "é"])
    if name == "*" and rng.random() < 0.2:
        name += rng.choice([" everyone", "\tall", "bot"])
    key = rng.choice(["User-agent", "User-agent", "user-agent", "USER-AGENT", "useragent", "User agent"])
    return f"{key}:{rng.choice([' ', '', '  '])}{name}"


def rule_line(rng):
    key = rng.choice(["Allow", "Disallow", "Allow", "Disallow", "allow", "DISALLOW", "disalow", "Dissallow"])
    value = pattern(rng)
    if rng.random() < 0.05 and " " not in value and value:
        return f"{key} {value}"
    comment = rng.choice(["", "", "", " # note", "#x"])
    return f"{key}:{rng.choice([' ', '', ' ' * 3, chr(9)])}{value}{comment}"


def other_line(rng):
    return rng.choice([
        "", "", "# comment", "Sitemap: http://example.com/sitemap.xml", "Unknown: thing", "junk",
        f"Crawl-delay: {rng.choice(['1', '2.5', '10', '.5', '0', 'soon', '-3', '1e2', '+4', '7s'])}",
        "Crawl-delay: 3", "Request-rate: 1/5", "Host: example.com"])


def robots_txt(rng):
    lines = []
    if rng.random() < 0.1:
        lines.append(rng.choice(["Disallow: /", "Allow: /x"]))
    for _ in range(rng.randint(1, 4)):
        for _ in range(rng.choice([1, 1, 2, 3])):
            lines.append(agent_line(rng))
            if rng.random() < 0.1:
                lines.append(other_line(rng))
        for _ in range(rng.randint(0, 8)):
            lines.append(rule_line(rng) if rng.random() < 0.85 else other_line(rng))
    end = rng.choice(["\n", "\n", "\r\n", "\r"])
    text = end.join(lines) + (end if rng.random() < 0.8 else "")
    data = text.encode("utf-8")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    return data, [line for line in lines]


DOT_SEGMENT = re.compile(r"(^|/)(\.|%2e){1,2}(/|$|\?)", re.I)


def url_for(rng, patterns):
    if rng.random() < 0.02:
        return "http://example.com/robots.txt"
    if patterns and rng.random() < 0.6:
        base = rng.choice(patterns).replace("*", rng.choice(["", "a", "x/y", "fish.php"]))
        base = base[:-1] if base.endswith("$") and rng.random() < 0.7 else base
        base = base.replace("$", rng.choice(["$", "", "%24"]))
    else:
        base = "/"
    path = base if base.startswith("/") else "/" + base
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        path += rng.choice(PIECES + ["*", "$"])
    if rng.random() < 0.05:
        path += "#frag"
    # What the oracle's URL parser (ada, WHATWG) would rewrite is left out: its differences are the
    # binding's, not Google's matcher's (docs/ROBOTS.md).
    path = path.replace("\\", "/").replace(" ", "")
    while re.search(r"\?(#|$)", path):
        path = re.sub(r"\?(#|$)", r"q\1", path, count=1)
    if DOT_SEGMENT.search(path.split("?")[0]):
        path = "/safe" + path.replace(".", "_")
    return "http://example.com" + path


def generated(rng, count):
    produced = 0
    while produced < count:
        body, lines = robots_txt(rng)
        patterns = [line.split(":", 1)[1].split("#")[0].strip() for line in lines
                    if line.lower().startswith(("allow:", "disallow:"))]
        queries = []
        for _ in range(min(40, count - produced)):
            queries.append((rng.choice(AGENTS), url_for(rng, patterns)))
        produced += len(queries)
        yield body, queries


