#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a WARC record could not be made or written.
///
/// Kinds are stable (``Kind``) for summaries and JSON records; ``description`` says what happened
/// and what to do.
public struct WARCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form that does not change between releases.
    public enum Kind: String, Sendable {
        /// A header field name or value that the WARC grammar cannot carry (a CR, LF or NUL in it,
        /// an empty name, or a name with a colon or white space).
        case invalidField
        /// The file could not be created, written, synced or renamed.
        case io
        /// zlib could not start or failed while compressing (out of memory).
        case compression
        /// A record was written after ``WARCWriter/close()``.
        case closed
    }

    private enum Code: Equatable {
        case invalidField(name: String)
        case io(operation: String, path: String, errno: Int32)
        case compression(reason: String)
        case closed(path: String)
    }

    private let code: Code

    /// What went wrong.
    public var kind: Kind {
        switch self.code {
        case .invalidField: .invalidField
        case .io: .io
        case .compression: .compression
        case .closed: .closed
        }
    }

    public var description: String {
        switch self.code {
        case .invalidField(let name):
            "the WARC header field \"\(name)\" has a name or value that a WARC header cannot hold "
                + "(CR, LF or NUL, or a name that is empty or has a colon or space): remove those characters"
        case .io(let operation, let path, let errno):
            "could not \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno)); "
                + "check the folder exists, is writable and has space"
        case .compression(let reason):
            "could not compress a WARC record: \(reason)"
        case .closed(let path):
            "the WARC file \(path) is already closed; open a new writer to write more records"
        }
    }

    static func invalidField(_ name: String) -> WARCError { WARCError(code: .invalidField(name: name)) }

    static func io(_ operation: String, _ path: String, errno: Int32) -> WARCError {
        WARCError(code: .io(operation: operation, path: path, errno: errno))
    }

    static func compression(_ reason: String) -> WARCError { WARCError(code: .compression(reason: reason)) }

    static func closed(_ path: String) -> WARCError { WARCError(code: .closed(path: path)) }
}
