import BatchFetch
import BatchFetchWARC
import Foundation

/// The response facts `--fields` asks for, at the end of a record (``RecordFields``).
///
/// A record another's transfer answered (`shared_with`) carries that transfer's headers,
/// redirects, remote and tls, as it carries its status and body, but no timings (`null`) and no
/// attempts (`[]`) of its own, as its `attempts` is 0 and its `total_ms` null. So does a record
/// the cache answered; a record with nothing sent has only `null` and `[]`.
extension RecordWriter {
    mutating func details(of result: FetchResult, warc location: WARCArchive.Location?) {
        let details = result.details
        let response = result.response
        if self.fields.contains(.headers) {
            self.json.raw(",\"headers\":")
            if let headers = response?.headers {
                self.json.headers(headers)
            } else {
                self.json.raw("null")
            }
        }
        if self.fields.contains(.redirects) {
            self.json.raw(",\"redirects\":[")
            for (index, hop) in (details?.redirects ?? []).enumerated() {
                self.json.raw(index == 0 ? "{\"url\":" : ",{\"url\":")
                self.json.string(hop.url.redactedURL)
                self.json.raw(",\"status\":")
                self.json.int(hop.status)
                self.json.byte(UInt8(ascii: "}"))
            }
            self.json.raw("],\"final_url\":")
            self.json.string((response?.effectiveURL ?? details?.finalURL)?.redactedURL)
        }
        if self.fields.contains(.timings) {
            self.json.raw(",\"timings\":")
            // Only a record whose own transfer ran has timings: not a copy, a cache answer or a refusal.
            if let total = result.totalTime, let timings = response?.timings ?? details?.timings {
                self.timings(timings, request: total)
            } else {
                self.json.raw("null")
            }
        }
        if self.fields.contains(.remote) {
            self.json.raw(",\"remote\":")
            self.remote(details?.remote)
        }
        if self.fields.contains(.tls) {
            self.json.raw(",\"tls\":")
            self.tls(details?.tls)
        }
        if self.fields.contains(.attempts) {
            self.json.raw(",\"attempt_log\":[")
            if result.sharedWith == nil, let details {
                self.attempts(of: details)
            }
            self.json.byte(UInt8(ascii: "]"))
        }
        if self.fields.contains(.robots) {
            self.robotsVerdict(of: result.request.url)
        }
        if self.fields.contains(.warc) {
            self.json.raw(",\"warc\":")
            self.warcLocation(location)
        }
    }

    private mutating func warcLocation(_ location: WARCArchive.Location?) {
        guard let location else {
            self.json.raw("null")
            return
        }
        self.json.raw("{\"file\":")
        self.json.string(location.file)
        self.json.raw(",\"offset\":")
        self.json.int(Int(location.offset))
        self.json.raw(",\"length\":")
        self.json.int(Int(location.length))
        self.json.raw(",\"record_id\":")
        self.json.string(location.recordID)
        self.json.byte(UInt8(ascii: "}"))
    }

    /// Per phase, not libcurl's running totals: dns + connect + tls + first byte + download = total.
    private mutating func timings(_ timings: Timings, request: Duration) {
        let phases = timings.phases
        self.json.raw("{\"queue_ms\":")
        self.json.milliseconds(timings.queued)
        self.json.raw(",\"dns_ms\":")
        self.json.milliseconds(phases.nameLookup)
        self.json.raw(",\"connect_ms\":")
        self.json.milliseconds(phases.connect)
        self.json.raw(",\"tls_ms\":")
        self.json.milliseconds(phases.tlsHandshake)
        self.json.raw(",\"first_byte_ms\":")
        self.json.milliseconds(phases.firstByte)
        self.json.raw(",\"download_ms\":")
        self.json.milliseconds(phases.download)
        self.json.raw(",\"total_ms\":")
        self.json.milliseconds(timings.total)
        self.json.raw(",\"request_ms\":")
        self.json.milliseconds(request)
        self.json.byte(UInt8(ascii: "}"))
    }

    private mutating func remote(_ remote: TransferDetails.Remote?) {
        guard let remote else {
            self.json.raw("null")
            return
        }
        self.json.raw("{\"ip\":")
        self.json.string(remote.address)
        self.json.raw(",\"port\":")
        self.json.int(remote.port)
        self.json.raw(",\"http_version\":")
        self.json.string(remote.httpVersion?.rawValue)
        self.json.raw(remote.reusedConnection ? ",\"reused\":true}" : ",\"reused\":false}")
    }

    private mutating func tls(_ tls: TransferDetails.TLS?) {
        guard let tls else {
            self.json.raw("null")
            return
        }
        self.json.raw("{\"version\":")
        self.json.string(tls.version)
        self.json.raw(",\"cipher\":")
        self.json.string(tls.cipher.isEmpty ? nil : tls.cipher)
        self.json.raw(",\"certificate_expires\":")
        self.json.string(tls.certificateExpiry.map(Self.utcTimestamp))
        self.json.byte(UInt8(ascii: "}"))
    }

    private mutating func attempts(of details: TransferDetails) {
        var first = true
        details.forEachAttempt { attempt in
            self.json.raw(first ? "{\"status\":" : ",{\"status\":")
            first = false
            if let status = attempt.status {
                self.json.int(status)
            } else {
                self.json.raw("null")
            }
            if let error = attempt.error {
                self.json.raw(",\"error\":{\"kind\":")
                self.json.string(error.kind.rawValue)
                self.json.raw(",\"message\":")
                self.json.string(error.message)
                self.json.byte(UInt8(ascii: "}"))
            } else {
                self.json.raw(",\"error\":null")
            }
            self.json.raw(",\"retry_after_ms\":")
            self.optionalMilliseconds(attempt.retryAfter)
            self.json.raw(",\"time_ms\":")
            self.optionalMilliseconds(attempt.time)
            self.json.byte(UInt8(ascii: "}"))
        }
    }

    private mutating func optionalMilliseconds(_ duration: Duration?) {
        if let duration {
            self.json.milliseconds(duration)
        } else {
            self.json.raw("null")
        }
    }

    /// `2026-03-01T12:00:00Z`: RFC 3339 in UTC, whole seconds (a certificate's times have no more).
    static func utcTimestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else {
            return ""
        }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
