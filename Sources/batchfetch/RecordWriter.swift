import BatchFetch
import Foundation

/// Formats fetch results as NDJSON records into a byte buffer.
struct RecordWriter {
    var buffer: [UInt8] = []

    init() {
        self.buffer.reserveCapacity(1 << 17)
    }

    /// Appends one record.
    /// - Returns: whether the result counts as ok (a response with a 2xx status).
    mutating func write(_ result: FetchResult) -> Bool {
        self.append("{\"index\":")
        self.append(String(result.index))
        self.append(",\"url\":")
        self.appendString(result.request.url.redactedURL)
        let ok: Bool
        switch result.outcome {
        case .success(let response):
            ok = (200...299).contains(response.status)
            self.append(",\"status\":")
            self.append(String(response.status))
            self.append(ok ? ",\"ok\":true" : ",\"ok\":false")
            self.append(",\"attempts\":")
            self.append(String(result.attempts))
            self.append(",\"bytes\":")
            self.append(String(response.body.count))
            self.append(",\"time_ms\":")
            self.append(Self.milliseconds(response.timings.total))
            if ok {
                self.append(",\"error\":null}\n")
            } else {
                self.append(",\"error\":{\"kind\":\"httpStatus\",\"message\":")
                self.appendString("HTTP status \(response.status)")
                self.append("}}\n")
            }
        case .failure(let error):
            ok = false
            self.append(",\"status\":null,\"ok\":false,\"attempts\":")
            self.append(String(result.attempts))
            self.append(",\"bytes\":0,\"time_ms\":null,\"error\":{\"kind\":")
            self.appendString(error.kind.rawValue)
            self.append(",\"message\":")
            self.appendString(error.message)
            self.append("}}\n")
        }
        return ok
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let micros = duration.nanoseconds / 1000
        let whole = micros / 1000
        let fraction = micros % 1000
        let padded = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 3 - padded.count) + padded
    }

    private mutating func append(_ text: String) {
        self.buffer.append(contentsOf: text.utf8)
    }

    /// Appends a JSON string literal.
    mutating func appendString(_ text: String) {
        var json = JSONBytes()
        swap(&json.buffer, &self.buffer)
        json.string(text)
        swap(&json.buffer, &self.buffer)
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
