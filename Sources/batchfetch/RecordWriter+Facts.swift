import BatchFetch

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

    mutating func error(_ error: FetchError) {
        self.json.raw(",\"error\":{\"kind\":")
        self.json.string(error.kind.rawValue)
        self.json.raw(",\"message\":")
        self.json.string(error.message)
        self.json.raw("}")
    }
}
