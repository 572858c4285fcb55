internal import CZlib
import Foundation

/// Decodes a body's content coding when libcurl does not: with ``TransferDetails/Kinds/exchanges``
/// the body is kept as sent for the archive, and the response gets this decoded copy.
enum ContentDecoding {
    /// What such an engine asks for (`Accept-Encoding`): the codings zlib decodes.
    static let accepted = "gzip, deflate"

    /// `body` with the content coding `field` (a `Content-Encoding` value) removed.
    /// - Returns: the body itself when it has no coding or one this cannot decode (brotli, zstd:
    ///   the record then shows the bytes as sent); `nil` when the body does not decode.
    static func decode(_ body: Data, field: String?, limit: Int) -> Result<Data, FetchError> {
        guard let field, !body.isEmpty else {
            return .success(body)
        }
        let coding = field.trimmingCharacters(in: .whitespaces).lowercased()
        let windowBits: Int32
        switch coding {
        case "gzip", "x-gzip": windowBits = 15 + 32
        case "deflate": windowBits = 15
        default: return .success(body)
        }
        if let decoded = Self.inflate(body, windowBits: windowBits, limit: limit) {
            return decoded
        }
        // Some servers send `deflate` as a raw DEFLATE stream, without zlib's header; libcurl
        // reads those too.
        if coding == "deflate", let decoded = Self.inflate(body, windowBits: -15, limit: limit) {
            return decoded
        }
        return .failure(
            FetchError(
                kind: .invalidResponse,
                message: "the body does not decode as its Content-Encoding '\(coding)' says (it is archived as sent)"))
    }

    /// The inflated body, a failure when it outgrows `limit`, `nil` when it is not such a stream.
    private static func inflate(_ body: Data, windowBits: Int32, limit: Int) -> Result<Data, FetchError>? {
        var stream = z_stream()
        guard czlib_inflate_init2(&stream, windowBits) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else {
                return
            }
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = UInt32(clamping: raw.count)
            while status == Z_OK && output.count <= limit {
                chunk.withUnsafeMutableBufferPointer { out in
                    guard let start = out.baseAddress else {
                        status = Z_MEM_ERROR
                        return
                    }
                    stream.next_out = start
                    stream.avail_out = UInt32(out.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(start, count: out.count - Int(stream.avail_out))
                }
                if status == Z_BUF_ERROR && stream.avail_in == 0 {
                    break
                }
            }
        }
        if output.count > limit {
            return .failure(
                FetchError(
                    kind: .tooLarge,
                    message:
                        "decoded body larger than the configured maximum of \(limit) bytes; raise it with --max-body"))
        }
        // A stream that ended (or one cut short after its data, as libcurl also accepts).
        guard status == Z_STREAM_END || (status == Z_BUF_ERROR && stream.total_out > 0) else {
            return nil
        }
        return .success(output)
    }
}
