import ArgumentParser
import BatchFetch
import Foundation

/// The response facts `fetch --fields` adds to each record, after all its other fields, always in
/// the order of ``names`` whatever the order asked.
struct RecordFields: OptionSet {
    let rawValue: Int

    /// `"headers"`: every field of the final response, `{"name":["value",…]}`.
    static let headers = RecordFields(rawValue: 1 << 0)
    /// `"redirects"` (each hop's URL and status) and `"final_url"`.
    static let redirects = RecordFields(rawValue: 1 << 1)
    /// `"timings"`: the final attempt's phases in ms, and the whole request's time.
    static let timings = RecordFields(rawValue: 1 << 2)
    /// `"remote"`: IP, port, HTTP version, whether the connection was reused.
    static let remote = RecordFields(rawValue: 1 << 3)
    /// `"tls"`: protocol version, cipher, the certificate's expiry.
    static let tls = RecordFields(rawValue: 1 << 4)
    /// `"attempt_log"`: each attempt's status or error, and the Retry-After it carried.
    static let attempts = RecordFields(rawValue: 1 << 5)
    /// `"robots"`: robots.txt's verdict, `{"allowed":…,"rule":…}` (`null` without `--robots`).
    static let robots = RecordFields(rawValue: 1 << 6)
    /// `"warc"`: where `--warc` put the final response, `{"file","offset","length","record_id"}`.
    static let warc = RecordFields(rawValue: 1 << 7)

    /// The names `--fields` takes, in record order.
    static let names: [(name: String, field: RecordFields)] = [
        ("headers", .headers), ("redirects", .redirects), ("timings", .timings), ("remote", .remote),
        ("tls", .tls), ("attempts", .attempts), ("robots", .robots), ("warc", .warc),
    ]

    /// Every field but `warc`, which names an archive only `--warc` writes.
    static let all = RecordFields(names.map(\.field)).subtracting(.warc)

    /// A comma-separated list of names, or `all`. - Throws: `ValidationError` naming what is unknown.
    init(parsing list: String) throws {
        self = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "all" {
                self.formUnion(.all)
            } else if let known = Self.names.first(where: { $0.name == name }) {
                self.formUnion(known.field)
            } else {
                let valid = (Self.names.map(\.name) + ["all"]).joined(separator: ", ")
                throw ValidationError("unknown field '\(item)'; give a comma-separated list of \(valid)")
            }
        }
    }

    init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// What the engine must gather for these fields; headers and a response's timings come with
    /// every response.
    var engineDetails: TransferDetails.Kinds {
        var kinds: TransferDetails.Kinds = []
        if self.contains(.redirects) { kinds.insert(.redirects) }
        if self.contains(.timings) { kinds.insert(.timings) }
        if self.contains(.remote) { kinds.insert(.remote) }
        if self.contains(.tls) { kinds.insert(.tls) }
        if self.contains(.attempts) { kinds.insert(.attempts) }
        return kinds
    }
}
