internal import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finishes the `.open` file a killed run left behind (``WARCWriter`` writes `NAME.open` and renames
/// it on close): keeps every whole record, cuts the partial one a kill may leave at the end,
/// renames the file to `NAME` and, when asked, writes the CDXJ index the run would have written
/// as it closed. `fetch --resume --warc` does this before it writes on.
///
/// A record is whole when its gzip member inflates completely, its CRC-32 and length agree
/// (zlib checks the trailer), and what it holds is one WARC record whose `Content-Length`
/// block and closing CRLF CRLF are all there; in a `.warc` file, when the record's bytes are.
/// The first record that is not ends the kept part.
public enum WARCRecovery {
    /// What finishing a file did.
    public struct Outcome: Sendable, Equatable {
        /// The finished file: the `.open` name without `.open`.
        public let path: String
        /// The whole records kept.
        public let records: Int
        /// The bytes cut from its end (a record cut short, or bytes that are not a record).
        public let cutBytes: Int64
    }

    /// Finishes `openPath`, a `NAME.warc.gz.open` or `NAME.warc.open` file.
    /// - Parameter indexes: also write its CDXJ index (``WARCArchive/indexPath(for:)``).
    /// - Throws: ``WARCError/Kind/io`` when the file cannot be read, cut or renamed, or `NAME`
    ///   exists already.
    public static func finish(openPath: String, indexes: Bool) throws(WARCError) -> Outcome {
        let path = String(openPath.dropLast(".open".count))
        guard openPath.hasSuffix(".open"), !path.isEmpty else {
            throw WARCError.io("finish (not a .open file)", openPath, errno: EINVAL)
        }
        guard access(path, F_OK) != 0 else {
            throw WARCError.io("rename to \(path)", openPath, errno: EEXIST)
        }
        guard access(openPath, R_OK | W_OK) == 0 else {
            throw WARCError.io("open", openPath, errno: errno)
        }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: openPath), options: .alwaysMapped) else {
            throw WARCError.io("read", openPath, errno: EIO)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let index = indexes ? CDXJIndexLines(folder: folder.isEmpty ? "." : folder) : nil
        let filename = (path as NSString).lastPathComponent
        let compressed = path.hasSuffix(".gz")
        var kept = 0
        var records = 0
        var failure: WARCError?
        data.withUnsafeBytes { raw in
            while kept < raw.count, failure == nil {
                let rest = UnsafeRawBufferPointer(rebasing: raw[kept...])
                guard let (record, length) = compressed ? Self.member(rest) : Self.plainRecord(rest) else {
                    break
                }
                let placement = WARCWriter.Placement(offset: Int64(kept), length: Int64(length))
                if let index, let line = CDXJLine(recordBytes: record, placement: placement, filename: filename) {
                    do throws(WARCError) {
                        try index.append(bytes: line.bytes)
                    } catch {
                        failure = error
                    }
                }
                kept += length
                records += 1
            }
        }
        if let failure {
            throw failure
        }
        let cut = Int64(data.count - kept)
        if truncate(openPath, off_t(kept)) != 0 {
            throw WARCError.io("cut", openPath, errno: errno)
        }
        let descriptor = open(openPath, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
        // link, then unlink, as WARCWriter closes: never over a file made meanwhile.
        guard link(openPath, path) == 0 else {
            throw WARCError.io("rename to \(path)", openPath, errno: errno)
        }
        unlink(openPath)
        try index?.write(to: WARCArchive.indexPath(for: path))
        return Outcome(path: path, records: records, cutBytes: cut)
    }

    /// The record in the gzip member at the start of `bytes`, and the member's length; `nil` when
    /// the member is cut short or corrupt, or holds no whole record.
    static func member(_ bytes: UnsafeRawBufferPointer) -> (record: [UInt8], length: Int)? {
        guard let base = bytes.baseAddress, bytes.count >= 18 else {
            return nil
        }
        var stream = z_stream()
        // 15 + 16: a gzip member, its header and trailer (CRC-32, length) checked by zlib.
        guard czlib_inflate_init2(&stream, 15 + 16) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = UInt32(clamping: bytes.count)
        var record = [UInt8](repeating: 0, count: 16_384)
        var produced = 0
        while true {
            if produced == record.count {
                record += [UInt8](repeating: 0, count: record.count)
            }
            let status = record.withUnsafeMutableBytes { out in
                stream.next_out = out.baseAddress?.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(clamping: out.count - produced)
                let before = stream.avail_out
                let status = inflate(&stream, Z_NO_FLUSH)
                produced += Int(before - stream.avail_out)
                return status
            }
            if status == Z_STREAM_END {
                break
            }
            // There is always output room, so anything else (Z_BUF_ERROR: the input ran out) ends it.
            guard status == Z_OK else {
                return nil
            }
        }
        record.removeLast(record.count - produced)
        let whole = record.withUnsafeBytes { Self.plainRecord($0)?.length }
        guard whole == record.count else {
            return nil
        }
        return (record, Int(stream.total_in))
    }

    /// The WARC record at the start of `bytes` and its length: a `WARC/` version line, header
    /// fields, a blank line, `Content-Length` bytes of block and CRLF CRLF; `nil` when it is not
    /// all there.
    static func plainRecord(_ bytes: UnsafeRawBufferPointer) -> (record: [UInt8], length: Int)? {
        guard bytes.starts(with: "WARC/".utf8) else {
            return nil
        }
        // A head is a few hundred bytes; one of more than 1 MiB is not ours.
        let window = UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, 1 << 20)])
        guard let headEnd = Self.headEnd(window), let length = Self.contentLength(window[..<headEnd]) else {
            return nil
        }
        let total = headEnd + length + 4
        guard total <= bytes.count, bytes[(total - 4)..<total].elementsEqual("\r\n\r\n".utf8) else {
            return nil
        }
        return (Array(bytes[..<total]), total)
    }

    /// Where the head ends: the offset just past its blank line (CRLF CRLF).
    static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A
            {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// The `Content-Length` of a record's head (read as an HTTP head is: a first line, then
    /// fields).
    private static func contentLength(_ head: Slice<UnsafeRawBufferPointer>) -> Int? {
        let value = HTTPBlock(parsing: Array(head))?.headerValue("Content-Length")
        return value.flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}

extension CDXJLine {
    /// The line for a record as written (its head and block), a response or revisit at
    /// `placement` in `filename`; `nil` for other records.
    init?(recordBytes bytes: [UInt8], placement: WARCWriter.Placement, filename: String) {
        guard let headEnd = bytes.withUnsafeBytes({ WARCRecovery.headEnd($0) }) else {
            return nil
        }
        // A WARC head has an HTTP head's shape: a first line, then `Name: value` lines.
        guard let head = HTTPBlock(parsing: Array(bytes[..<headEnd])),
            let type = head.headerValue("WARC-Type"), let kind = WARCRecord.Kind(rawValue: type),
            let url = head.headerValue("WARC-Target-URI"),
            let date = head.headerValue("WARC-Date").flatMap(WARCDate.init(warcText:))
        else {
            return nil
        }
        // The block, without the record's closing CRLF CRLF.
        let block = Array(bytes[headEnd..<max(headEnd, bytes.count - 4)])
        self.init(
            kind: kind, url: url, date: date, block: block,
            payloadDigest: head.headerValue("WARC-Payload-Digest"), placement: placement,
            filename: filename)
    }
}

extension WARCDate {
    /// The date of a `WARC-Date` value, `2026-11-29T10:00:00Z` or with a fraction of a second
    /// (`.123456`); `nil` for another form.
    public init?(warcText text: String) {
        let parts = text.split(separator: ".", maxSplits: 1)
        let whole = parts[0].filter(\.isNumber)
        guard whole.count == 14, text.hasSuffix("Z"), let date = WARCDate(timestamp14: String(whole)) else {
            return nil
        }
        var micros: Int32 = 0
        if parts.count == 2 {
            let digits = parts[1].dropLast().prefix(6)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int32(digits) else {
                return nil
            }
            micros = value
            for _ in digits.count..<6 {
                micros *= 10
            }
        }
        self.init(seconds: date.seconds, microseconds: micros)
    }
}
