"""Asks a running pywb for the identity replay of URLs and prints what it answered, as JSON.

replay.py PORT COLLECTION ACCEPT_ENCODING TIME_LIMIT URL...: scripts/warc-check replay has started
`wayback` on 127.0.0.1:PORT with the WARC files in COLLECTION. For each URL, in order, one GET of
/COLLECTION/id_/URL (pywb's identity mode: the archived status, headers and body bytes, nothing
rewritten; it adds headers of its own, such as Memento-Datetime and Link), and one line of JSON:
  url: the URL asked for; path: the request's path.
  status, reason: pywb's status line; null when no answer came.
  headers: [[name, value], ...] in the order pywb sent them (the archived fields it kept, and its
    own; fields it renamed appear as X-Archive-Orig-…).
  length, sha256 (hex), body (base64): the body bytes as received, with pywb's own chunked framing
    removed and nothing else decoded.
  error: null, or why no answer came (connection refused, time-out).
The requests send `Accept-Encoding: ACCEPT_ENCODING` (an empty value sends `identity`), because
pywb decodes a stored gzip body for a client that does not take gzip. Redirects are not followed.
"""
import base64
import hashlib
import http.client
import json
import sys
import time


def fetch(port, path, accept_encoding, timeout):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        return {
            "status": response.status,
            "reason": response.reason,
            "headers": [list(pair) for pair in response.getheaders()],
            "length": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "body": base64.b64encode(body).decode("ascii"),
            "error": None,
        }
    finally:
        connection.close()


def main():
    port, collection, accept_encoding, time_limit, *urls = sys.argv[1:]
    deadline = time.monotonic() + float(time_limit)
    for url in urls:
        path = f"/{collection}/id_/{url}"
        entry = {"url": url, "path": path}
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError(f"the {time_limit} s time limit ran out")
            entry.update(fetch(int(port), path, accept_encoding, left))
        except (OSError, http.client.HTTPException) as caught:
            entry.update(
                {"status": None, "reason": None, "headers": [], "length": 0, "sha256": None, "body": None,
                 "error": f"{type(caught).__name__}: {caught}"}
            )
        print(json.dumps(entry), flush=True)


if __name__ == "__main__":
    main()
