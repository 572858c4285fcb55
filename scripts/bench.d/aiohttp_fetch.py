#!/usr/bin/env python3
"""The Python peer for scripts/bench: aiohttp + json.loads over a URL list.

usage: aiohttp_fetch.py LIST [CONCURRENCY]

CONCURRENCY workers (default 64) share one session whose connector allows as many connections;
each body is read whole and parsed with json.loads, then dropped. One summary line on stderr;
exit 1 when any request failed.
"""
import asyncio
import json
import sys

import aiohttp


async def run(urls, concurrency):
    counts = {"ok": 0, "failed": 0, "bytes": 0}
    pending = iter(urls)
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def worker():
            for url in pending:
                try:
                    async with session.get(url) as response:
                        body = await response.read()
                        json.loads(body)
                        counts["ok" if 200 <= response.status < 300 else "failed"] += 1
                        counts["bytes"] += len(body)
                except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                    counts["failed"] += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return counts


def main():
    with open(sys.argv[1]) as f:
        urls = [line.strip() for line in f if line.strip()]
    concurrency = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    counts = asyncio.run(run(urls, concurrency))
    print(f"aiohttp_fetch: {counts['ok']} ok, {counts['failed']} failed, {counts['bytes']} body bytes",
          file=sys.stderr)
    sys.exit(1 if counts["failed"] else 0)


if __name__ == "__main__":
    main()
