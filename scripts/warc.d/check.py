"""Reads WARC files with outside tools and reports what they saw, as JSON, for the Swift tests.

check FILE...: for each file, one line of JSON:
  members: the file's gzip members (Python's zlib, one decompressobj per member), each as
    {"offset", "length", "data": base64 of the inflated bytes}; for an uncompressed file, [].
  partial_tail: bytes after the last whole member (a cut-off member), 0 when none.
  records: what warcio's ArchiveIterator parsed, each {"offset", "length", "type", "id",
    "headers": [[name, value], ...], "http_status", "http_headers": [[name, value], ...],
    "raw_payload": base64 of the stored payload, "payload": base64 after warcio removes content coding}.
  iterator_error: warcio's error when it stopped early, else null.
  check: {"status": exit status of `warcio check -v`, "output": its text}.
  cdxj: the lines `cdxj-indexer` writes for the file.
  fastwarc: `fastwarc check --verify-payloads` on the file: {"status": its exit status, "output":
    what it printed, "records": [{"id", "type", "block", "payload"}, ...] from its --output details
    ("OK", "FAIL" or "NO_DIGEST"; payload null when not checked; type as warcio read it),
    "passed", "skipped": null}; or, where pip could not install fastwarc, {"status": null,
    "output": "", "records": [], "passed": null, "skipped": why}.
    fastwarc digests a revisit's empty payload and compares it with its WARC-Payload-Digest, which
    WARC 1.1 (6.7.2) makes the digest of the payload the revisit refers to: it fails every such
    revisit, and exits 1. "passed" is true when every block verified, every response's payload
    did, and no other record's but a revisit's failed; the status and output are fastwarc's own.
surt: reads URLs, one a line, and prints surt.surt() of each.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import zlib

from warcio.archiveiterator import ArchiveIterator


def b64(data):
    return base64.b64encode(data).decode("ascii")


def gzip_members(data):
    members = []
    offset = 0
    while offset < len(data):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            inflated = inflater.decompress(data[offset:])
        except zlib.error:
            break
        if not inflater.eof:
            break
        length = len(data) - offset - len(inflater.unused_data)
        members.append({"offset": offset, "length": length, "data": b64(inflated)})
        offset += length
    return members, len(data) - offset


def records(path):
    found = []
    error = None
    with open(path, "rb") as stream:
        iterator = ArchiveIterator(stream, check_digests=True)
        try:
            for record in iterator:
                # The payload first: asking warcio for the offset before reading it leaves the stream empty.
                raw_payload = b64(record.raw_stream.read())
                entry = {
                    "type": record.rec_type,
                    "id": record.rec_headers.get_header("WARC-Record-ID"),
                    "headers": [list(pair) for pair in record.rec_headers.headers],
                    "http_status": None,
                    "http_headers": None,
                }
                if record.http_headers is not None:
                    entry["http_status"] = record.http_headers.get_statuscode()
                    entry["http_headers"] = [list(pair) for pair in record.http_headers.headers]
                entry["raw_payload"] = raw_payload
                iterator.read_to_end(record)
                entry["offset"] = iterator.get_record_offset()
                entry["length"] = iterator.get_record_length()
                found.append(entry)
        except Exception as caught:  # noqa: BLE001 - the report names whatever warcio raised
            error = f"{type(caught).__name__}: {caught}"
    # The payload after content decoding, read in a second pass (the raw stream is used up).
    with open(path, "rb") as stream:
        try:
            for index, record in enumerate(ArchiveIterator(stream)):
                if index < len(found):
                    found[index]["payload"] = b64(record.content_stream().read())
        except Exception:  # noqa: BLE001 - already reported by the first pass
            pass
    return found, error


def fastwarc_check(tools, path, types):
    program = os.path.join(tools, "fastwarc")
    if not os.access(program, os.X_OK):
        reason_file = os.path.join(os.path.dirname(tools), "fastwarc-skipped")
        try:
            with open(reason_file, encoding="utf-8", errors="replace") as stream:
                reason = stream.read().strip() or "pip could not install fastwarc"
        except OSError:
            reason = "pip could not install fastwarc"
        return {"status": None, "output": "", "records": [], "passed": None, "skipped": reason}
    with tempfile.TemporaryDirectory(prefix="warc-check-fastwarc-") as folder:
        details = os.path.join(folder, "details.txt")
        checked = subprocess.run(
            [program, "check", "--verify-payloads", "--output", details, path],
            capture_output=True,
            text=True,
        )
        try:
            with open(details, encoding="utf-8", errors="replace") as stream:
                lines = stream.read().splitlines()
        except OSError:
            lines = []
    # Each line: "<urn:uuid:…>: OK, PAYLOAD_OK" (or FAIL, PAYLOAD_FAIL; no payload part for a record
    # whose payload digest it did not check).
    records = []
    for line in lines:
        record_id, _, verdicts = line.rpartition(": ")
        words = [word.strip() for word in verdicts.split(",")]
        payload = next((word[len("PAYLOAD_"):] for word in words if word.startswith("PAYLOAD_")), None)
        block = next((word for word in words if not word.startswith("PAYLOAD_")), None)
        records.append({"id": record_id, "type": types.get(record_id), "block": block, "payload": payload})
    # Its progress bar redraws with carriage returns on standard error: drop it, keep the rest.
    errors = [
        part
        for part in checked.stderr.replace("\r", "\n").split("\n")
        if part.strip() and not part.startswith("Verifying digests")
    ]
    output = "\n".join([checked.stdout.strip()] + errors).strip()
    passed = (
        checked.returncode in (0, 1)
        and len(records) == len(types)
        and all(record["block"] == "OK" for record in records)
        and all(record["payload"] == "OK" for record in records if record["type"] == "response")
        and all(record["payload"] in ("OK", "NO_DIGEST", None) for record in records if record["type"] != "revisit")
    )
    return {"status": checked.returncode, "output": output, "records": records, "passed": passed, "skipped": None}


def check(tools, path):
    with open(path, "rb") as stream:
        data = stream.read()
    members, tail = gzip_members(data) if data[:2] == b"\x1f\x8b" else ([], 0)
    found, error = records(path)
    folder, name = os.path.split(os.path.abspath(path))
    run = {"capture_output": True, "text": True, "cwd": folder}
    checked = subprocess.run([os.path.join(tools, "warcio"), "check", "-v", name], **run)
    # Run on the bare name, so the lines' "filename" is the name alone, as pywb's collections hold it.
    indexed = subprocess.run([os.path.join(tools, "cdxj-indexer"), name], **run)
    return {
        "members": members,
        "partial_tail": tail,
        "records": found,
        "iterator_error": error,
        "check": {"status": checked.returncode, "output": checked.stdout + checked.stderr},
        "cdxj": [line for line in indexed.stdout.splitlines() if line],
        "fastwarc": fastwarc_check(tools, path, {record["id"]: record["type"] for record in found}),
    }


def main():
    tools, command, *rest = sys.argv[1:]
    if command == "check":
        for path in rest:
            print(json.dumps(check(tools, path)))
    elif command == "surt":
        import surt

        for line in sys.stdin:
            print(surt.surt(line.rstrip("\n")))
    else:
        sys.exit(f"warc-check: unknown command {command}")


if __name__ == "__main__":
    main()
