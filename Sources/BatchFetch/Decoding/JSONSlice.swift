import Foundation

/// A validated JSON value inside a body: the body, the value's byte range, and its kind.
///
/// Holding the body and a range instead of a copy keeps slicing free; ``bytes`` copies only
/// when asked.
public struct JSONSlice: Sendable {
    /// The whole document.
    public let body: Data
    /// The value's byte offsets within ``body``, from its first to its last byte.
    public let range: Range<Int>
    /// What kind of value it is.
    public let kind: JSONValueKind
    /// `false` when the value is known to hold no tab, LF or CR (the validator saw none between
    /// tokens), so a record writer need not look for line breaks to remove.
    package let mayHoldLineBreaks: Bool

    package init(body: Data, range: Range<Int>, kind: JSONValueKind, mayHoldLineBreaks: Bool = true) {
        self.body = body
        self.range = range
        self.kind = kind
        self.mayHoldLineBreaks = mayHoldLineBreaks
    }

    /// The value's bytes (a copy).
    public var bytes: Data {
        self.body.subdata(
            in: (self.body.startIndex + self.range.lowerBound)..<(self.body.startIndex + self.range.upperBound))
    }

    /// Calls `body` with the value's bytes, without copying them.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try self.body.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[self.range]))
        }
    }

    /// Decodes the value as `T`.
    /// - Throws: ``FetchError/Kind/decodingFailed`` naming the coding path that did not match.
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = Envelope.decoder) throws(FetchError)
        -> T
    {
        do {
            // The slice is handed to JSONDecoder without a copy; it does not outlive this call.
            return try self.body.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, !self.range.isEmpty else {
                    return try decoder.decode(type, from: Data())
                }
                let slice = Data(
                    bytesNoCopy: UnsafeMutableRawPointer(mutating: base + self.range.lowerBound),
                    count: self.range.count,
                    deallocator: .none
                )
                return try decoder.decode(type, from: slice)
            }
        } catch let error as DecodingError {
            throw FetchError(
                kind: .decodingFailed, message: JSONSlice.describe(error, as: type),
                snippet: Snippet.of(self.bytes, around: 0))
        } catch {
            throw FetchError(kind: .decodingFailed, message: "\(error)")
        }
    }

    private static func describe<T>(_ error: DecodingError, as type: T.Type) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { key in
                key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
            }.joined()
            return text.isEmpty ? "the top level" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let expected, let context):
            return "at \(path(context)): expected \(expected), \(context.debugDescription)"
        case .valueNotFound(let expected, let context):
            return "at \(path(context)): expected \(expected), found null"
        case .keyNotFound(let key, let context):
            return "at \(path(context)): missing key '\(key.stringValue)'"
        case .dataCorrupted(let context):
            return "at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "cannot decode \(T.self): \(error)"
        }
    }
}
