import BatchFetch
import BatchFetchRobotsPolicy

/// What a record says about the transfer behind it, beside the response: the status of one that
/// failed, whose transfer answered it, how many attempts and how long it took, and the error.
extension RecordWriter {
    /// `"status"` of a record without a response: the status that arrived before its transfer
    /// failed (a 200 whose body then timed out), else `null`.
    mutating func status(of error: FetchError) {
        self.json.raw(",\"status\":")
        if let status = error.status {
            self.json.int(status)
        } else {
            self.json.raw("null")
        }
    }

    /// `"attempts"`, preceded by `"shared_with"` when the record is another's copy: its attempts
    /// are that record's, and it made none (only records that are copies have the field, so the
    /// others keep their bytes).
    mutating func attempts(_ result: FetchResult, sharedWith: Int?) {
        if let sharedWith {
            self.json.raw(",\"shared_with\":")
            self.json.int(sharedWith)
        }
        self.json.raw(",\"attempts\":")
        self.json.int(result.attempts)
    }

    /// `"total_ms"`: the whole request's time, every attempt and the waits between them
    /// (`"time_ms"` is the last attempt's); `null` when it sent nothing.
    mutating func totalTime(_ result: FetchResult) {
        self.json.raw(",\"total_ms\":")
        if let total = result.totalTime {
            self.json.milliseconds(total)
        } else {
            self.json.raw("null")
        }
    }

    /// `"error"`, its message followed by why retrying stopped when the engine gave up on an
    /// outcome worth retrying: a record must not look as if a 503 was never retried.
    mutating func error(_ error: FetchError, gaveUp: RetryPolicy.GiveUp?, url: String? = nil) {
        self.json.raw(",\"error\":{\"kind\":")
        self.json.string(error.kind.rawValue)
        self.json.raw(",\"message\":")
        if let gaveUp {
            self.json.string(error.message + Self.explanation(of: gaveUp))
        } else {
            self.json.string(error.message)
        }
        if let url, Self.robotsKinds.contains(error.kind), let verdict = self.robots?.verdict(forURL: url) {
            self.json.raw(",\"robots_url\":")
            self.json.string(verdict.robotsURL)
            if error.kind == .robotsDisallowed {
                self.json.raw(",\"rule\":")
                self.json.string(verdict.rule)
                self.json.raw(",\"line\":")
                if let line = verdict.line {
                    self.json.int(line)
                } else {
                    self.json.raw("null")
                }
            }
        }
        self.json.raw("}")
    }

    /// The errors robots.txt gave, whose records name it (and the rule).
    static let robotsKinds: Set<FetchError.Kind> = [.robotsDisallowed, .robotsUnreachable, .robotsCrawlDelay]

    /// `"robots"`: the verdict of `url`'s robots.txt, `null` where none was read.
    mutating func robotsVerdict(of url: String) {
        self.json.raw(",\"robots\":")
        guard let verdict = self.robots?.verdict(forURL: url) else {
            self.json.raw("null")
            return
        }
        self.json.raw(verdict.allowed ? "{\"allowed\":true,\"rule\":" : "{\"allowed\":false,\"rule\":")
        self.json.string(verdict.rule)
        self.json.byte(UInt8(ascii: "}"))
    }

    static func explanation(of gaveUp: RetryPolicy.GiveUp) -> String {
        switch gaveUp {
        case .retriesExhausted(let attempts):
            return "; gave up after \(attempts) attempts"
        case .retryAfterTooLong(let requested, let limit):
            return "; the server asked to retry after \(Self.seconds(requested)) s, longer than the "
                + "\(Self.seconds(limit)) s batchfetch waits"
        case .notIdempotent(let method):
            return "; not retried: the server may have processed this \(method), which is sent again only "
                + "where it surely was not (no connection, 429, 503 with Retry-After) or with --retry-all-methods"
        }
    }

    /// Whole seconds, rounded up: a wait just over the limit must not read as equal to it.
    private static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
