#!/usr/bin/env python3
"""Converts google/robotstxt-spec-test's .textproto cases into one JSON file.

Usage: convert-spec-test.py SPEC_TEST_GIT_DIR_OR_CHECKOUT OUT.json

The cases are the RobotsTxtSpecification messages under src/main/resources/CTC/ (correctness and
stress). Only the subset of the protobuf text format that those files use is read: fields,
`[...]` lists, `{...}` messages, enum names, and C-escaped string literals that adjacent literals
concatenate. Each case becomes {"file", "robotstxt" | "robotstxt_base64", "expectations": [{"url",
"agent", "allowed", "google_specific"}]}; the explanations are left out (the source has them).
"""

import base64
import json
import os
import re
import subprocess
import sys

CTC = "src/main/resources/CTC/"


def list_files(source):
    """(path, bytes) of every .textproto under CTC/, from a checkout or a bare git directory."""
    if os.path.isdir(os.path.join(source, CTC)):
        found = []
        for folder, _, names in os.walk(os.path.join(source, CTC)):
            for name in names:
                if name.endswith(".textproto"):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as handle:
                        found.append((os.path.relpath(path, source), handle.read()))
        return sorted(found)
    names = subprocess.run(
        ["git", "--git-dir", source, "ls-tree", "-r", "--name-only", "HEAD", CTC],
        check=True, capture_output=True, text=True).stdout.split()
    return [(name, subprocess.run(["git", "--git-dir", source, "show", "HEAD:" + name],
                                  check=True, capture_output=True).stdout)
            for name in sorted(names) if name.endswith(".textproto")]


TOKEN = re.compile(rb'\s+|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[\[\]{}:,]|[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+')


def unescape(literal):
    """The bytes a C-escaped protobuf string literal (without its quotes) stands for."""
    out = bytearray()
    i = 0
    simple = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord('"'): 34, ord("'"): 39, ord("\\"): 92,
              ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("v"): 11, ord("?"): 63}
    while i < len(literal):
        c = literal[i]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        e = literal[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e in (ord("x"), ord("X")):
            j = i + 2
            while j < len(literal) and j < i + 4 and chr(literal[j]) in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(literal[i + 2:j], 16))
            i = j
        elif ord("0") <= e <= ord("7"):
            j = i + 1
            while j < len(literal) and j < i + 4 and ord("0") <= literal[j] <= ord("7"):
                j += 1
            out.append(int(literal[i + 1:j], 8))
            i = j
        else:
            raise ValueError(f"unknown escape \\{chr(e)}")
    return bytes(out)


def tokens(data):
    pos = 0
    while pos < len(data):
        match = TOKEN.match(data, pos)
        if not match:
            raise ValueError(f"cannot read at byte {pos}: {data[pos:pos + 20]!r}")
        pos = match.end()
        text = match.group(0)
        if text[:1].isspace() or text.startswith(b"#"):
            continue
        yield text


class Reader:
    def __init__(self, data):
        self.items = list(tokens(data))
        self.pos = 0

    def peek(self):
        return self.items[self.pos] if self.pos < len(self.items) else None

    def take(self):
        item = self.items[self.pos]
        self.pos += 1
        return item

    def value(self):
        head = self.peek()
        if head == b"[":
            self.take()
            values = []
            while self.peek() != b"]":
                values.append(self.value())
                if self.peek() == b",":
                    self.take()
            self.take()
            return values
        if head == b"{":
            self.take()
            message = self.message(b"}")
            self.take()
            return message
        if head.startswith(b'"'):
            parts = []
            while self.peek() is not None and self.peek().startswith(b'"'):
                parts.append(unescape(self.take()[1:-1]))
            return b"".join(parts)
        return self.take().decode()

    def message(self, end=None):
        fields = {}
        while self.peek() is not None and self.peek() != end:
            name = self.take().decode()
            if self.peek() == b":":
                self.take()
            value = self.value()
            if isinstance(value, list):
                fields.setdefault(name, []).extend(value)
            elif name in fields:
                fields.setdefault(name + "[]", []).append(value)
            else:
                fields[name] = value
        return fields


def convert(path, data):
    cases = []
    for test in Reader(data).message().get("tests", []):
        body = test.get("robotstxt", b"")
        case = {"file": path}
        try:
            case["robotstxt"] = body.decode("utf-8")
        except UnicodeDecodeError:
            case["robotstxt_base64"] = base64.b64encode(body).decode()
        case["expectations"] = [{
            "url": expectation["testurl"].decode("utf-8"),
            "agent": expectation["useragent"].decode("utf-8"),
            "allowed": {"ALLOWED": True, "DISALLOWED": False}[expectation["expected_outcome"]],
            "google_specific": expectation.get("test_type", "STANDARD") == "GOOGLE_SPECIFIC",
        } for expectation in test.get("test_expectations", [])]
        cases.append(case)
    return cases


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cases = [case for path, data in list_files(sys.argv[1]) for case in convert(path, data)]
    header = {"source": "https://github.com/google/robotstxt-spec-test", "licence": "Apache-2.0"}
    if not os.path.isdir(os.path.join(sys.argv[1], CTC)):
        header["commit"] = subprocess.run(["git", "--git-dir", sys.argv[1], "rev-parse", "HEAD"],
                                          check=True, capture_output=True, text=True).stdout.strip()
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        json.dump({**header, "cases": cases}, out, ensure_ascii=False, indent=1)
        out.write("\n")
    print(f"{len(cases)} robots.txt files, {sum(len(c['expectations']) for c in cases)} expectations",
          file=sys.stderr)


if __name__ == "__main__":
    main()
