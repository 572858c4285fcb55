import BatchFetch
import BatchFetchRobotsPolicy
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What `fetch -o FILE --resume` keeps of FILE: its complete records (ok ones, and failures a new
/// attempt would not change), found by their `index`, and copied byte for byte into the new file
/// in their places among the records fetched now.
///
/// Only offsets are held, not the lines: the old file stays open and each kept line is read back
/// when its turn comes. `@unchecked Sendable`: used by the one task that writes the records, and
/// read by the command after that task ended.
final class KeptRecords: @unchecked Sendable {
    /// A kept record: its input line's index and where its line (newline included) lies in FILE.
    struct Line {
        let index: Int
        let offset: Int
        let length: Int
    }

    /// Why FILE cannot be resumed into: it is not a fetch output, or cannot be read.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The kept records in index order.
    let lines: [Line]
    /// Their indices, for leaving their input lines out of the run.
    let indices: Set<Int>
    /// How many of them are ok, and how many failed for good.
    let ok: Int
    let failed: Int
    /// Failed ones that count against the exit status: not those robots.txt disallowed, a policy.
    var failures: Int { FetchTally.failures(self.failed, byKind: self.failuresByKind) }
    /// The failed ones by their error kind, for the summary.
    let failuresByKind: [String: Int]
    private let file: FileHandle?
    private var next = 0

    /// Nothing kept: FILE did not exist.
    static let none = KeptRecords(lines: [], ok: 0, failed: 0, failuresByKind: [:], file: nil)

    private init(lines: [Line], ok: Int, failed: Int, failuresByKind: [String: Int], file: FileHandle?) {
        self.lines = lines
        self.indices = Set(lines.map(\.index))
        self.ok = ok
        self.failed = failed
        self.failuresByKind = failuresByKind
        self.file = file
    }

    /// Whether every kept record has been copied out.
    var copiedAll: Bool { self.next == self.lines.count }

    /// Reads the records of `path`: a torn last line (the run died mid-write) is dropped, and so
    /// is every record whose request should be sent again.
    static func read(path: String) throws(Refusal) -> KeptRecords {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw Refusal(description: "cannot read \(path)")
        }
        var lines: [Line] = []
        var seen = Set<Int>()
        var ok = 0
        var failed = 0
        var kinds: [String: Int] = [:]
        var offset = 0
        var lineNumber = 0
        var carry = Data()
        while true {
            let chunk: Data
            do {
                chunk = try file.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw Refusal(description: "cannot read \(path): \(error.localizedDescription)")
            }
            if chunk.isEmpty {
                break
            }
            carry.append(chunk)
            var start = carry.startIndex
            while let newline = carry[start...].firstIndex(of: 0x0A) {
                lineNumber += 1
                let line = carry[start..<newline]
                let record = try Self.record(line, path: path, lineNumber: lineNumber)
                if Self.isFinal(record.fields), seen.insert(record.index).inserted {
                    lines.append(Line(index: record.index, offset: offset, length: line.count + 1))
                    if record.fields["ok"] as? Bool == true {
                        ok += 1
                    } else {
                        failed += 1
                        let kind = (record.fields["error"] as? [String: Any])?["kind"] as? String ?? "other"
                        kinds[kind, default: 0] += 1
                    }
                }
                offset += line.count + 1
                start = carry.index(after: newline)
            }
            carry = Data(carry[start...])
        }
        // What follows the last newline must be the start of a record that a killed run tore.
        if let first = carry.first(where: { $0 != 0x20 }), first != UInt8(ascii: "{") {
            throw Refusal(
                description: "\(path) ends in text that is not a batchfetch record; refusing to resume into it")
        }
        lines.sort { $0.index < $1.index }
        return KeptRecords(lines: lines, ok: ok, failed: failed, failuresByKind: kinds, file: file)
    }

    /// The fields of one line, which must be a fetch record (a JSON object with an `index`).
    private static func record(
        _ line: Data, path: String, lineNumber: Int
    ) throws(Refusal) -> (index: Int, fields: [String: Any]) {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
            let index = object["index"] as? Int, index >= 0
        else {
            throw Refusal(
                description: "\(path) line \(lineNumber) is not a batchfetch fetch record (a JSON object with an "
                    + "\"index\"); refusing to resume into it")
        }
        return (index, object)
    }

    /// Error kinds that say what the server or the input line is, not how the network was: sent
    /// again, the request would fail the same way.
    static let finalKinds: Set<String> = [
        FetchError.Kind.invalidURL, .unsupportedScheme, .invalidHeader, .invalidRequest, .tooLarge,
        .tooManyRedirects, .invalidResponse, .emptyBody, .invalidJSON, .wrongContentType, .missingKey,
        .unexpectedShape, .decodingFailed, .robotsDisallowed,
    ].reduce(into: Set<String>()) { $0.insert($1.rawValue) }

    /// Whether a record is complete: ok, or a failure that a new attempt would not change (a 4xx
    /// status other than those a retry may cure, a permanent error). Interrupted records, transport
    /// failures, timeouts, 5xx, 408, 425 and 429 are not: their requests are sent again.
    static func isFinal(_ record: [String: Any]) -> Bool {
        if record["ok"] as? Bool == true {
            return true
        }
        guard let kind = (record["error"] as? [String: Any])?["kind"] as? String else {
            return false
        }
        if kind == FetchError.Kind.httpStatus.rawValue {
            guard let status = record["status"] as? Int else {
                return false
            }
            return (400..<500).contains(status) && !RetryPolicy.defaultRetryableStatuses.contains(status)
        }
        return Self.finalKinds.contains(kind)
    }

    /// Copies out, in index order, the kept records whose index is below `index` (all that are
    /// left when `nil`). - Returns: the bytes to write, empty when none is due.
    func due(before index: Int?) -> Data {
        var bytes = Data()
        while self.next < self.lines.count, index.map({ self.lines[self.next].index < $0 }) ?? true {
            let line = self.lines[self.next]
            guard let file = self.file, (try? file.seek(toOffset: UInt64(line.offset))) != nil,
                let read = try? file.read(upToCount: line.length), read.count == line.length
            else {
                // The old file changed under the run: stop copying, so it is not replaced.
                return bytes
            }
            bytes.append(read)
            self.next += 1
        }
        return bytes
    }
}
