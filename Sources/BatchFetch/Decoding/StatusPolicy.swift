import Foundation

/// Which HTTP statuses count as success (by default 200 to 299).
///
/// Any other status becomes ``FetchError/Kind/httpStatus`` carrying the start of the body,
/// sanitised, so a record shows what the server said.
public struct StatusPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The accepted ranges.
    public var accepted: [ClosedRange<Int>]

    /// Accepts the given ranges.
    public init(accepting accepted: [ClosedRange<Int>]) {
        self.accepted = accepted
    }

    /// 200...299.
    public static let successful = StatusPolicy(accepting: [200...299])

    /// Parses a list such as `200-299,304` or `200`.
    public init(parsing text: String) throws(FetchError) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            if bounds.count == 1, let single = bounds[0], (100...599).contains(single) {
                ranges.append(single...single)
            } else if bounds.count == 2, let low = bounds[0], let high = bounds[1], low <= high, low >= 100, high <= 599
            {
                ranges.append(low...high)
            } else {
                throw FetchError(
                    kind: .invalidConfiguration,
                    message: "status list '\(text)' is not like '200-299,304' (codes 100–599)")
            }
        }
        guard !ranges.isEmpty else {
            throw FetchError(kind: .invalidConfiguration, message: "empty status list")
        }
        self.init(accepting: ranges)
    }

    /// Whether `status` is accepted.
    public func accepts(_ status: Int) -> Bool {
        self.accepted.contains { $0.contains(status) }
    }

    /// Throws ``FetchError/Kind/httpStatus`` unless the response's status is accepted.
    public func check(_ response: Response) throws(FetchError) {
        guard self.accepts(response.status) else {
            throw FetchError.httpStatus(response.status, snippet: Snippet.of(response.body, around: 0))
        }
    }

    public var description: String {
        self.accepted.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }
}

/// Short, printable excerpts of bodies for error messages.
enum Snippet {
    /// Up to `length` bytes of `body` around `offset`, with control and non-ASCII bytes shown as `·`
    /// so a record never carries raw binary or terminal escapes.
    static func of(_ body: Data, around offset: Int, length: Int = 80) -> String? {
        guard !body.isEmpty else {
            return nil
        }
        let start = max(0, min(offset - length / 4, body.count - 1))
        let end = min(body.count, start + length)
        // Built as UTF-8 bytes and decoded once: appending scalar by scalar to a String cost more
        // than validating the 64 KB page it came from.
        let ellipsis = Array("…".utf8)
        let dot = Array("·".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * (end - start) + 2 * ellipsis.count)
        if start > 0 {
            text += ellipsis
        }
        body.withUnsafeBytes { raw in
            for byte in raw[start..<end] {
                if byte >= 0x20 && byte < 0x7F {
                    text.append(byte)
                } else {
                    text += dot
                }
            }
        }
        if end < body.count {
            text += ellipsis
        }
        return String(decoding: text, as: UTF8.self)
    }
}
