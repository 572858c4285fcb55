import BatchFetch
import Foundation

/// Reads an NDJSON crawl output back to find where an interrupted crawl stopped.
///
/// Complete lines name the facets already done; a torn last line (no newline: the process died
/// mid-write) is discarded, and so is everything from the first facet recorded with an error,
/// which a resumed run fetches again. The file is then cut to what is kept, and the crawl appends.
public struct ResumeFile: Sendable {
    /// Facet names already complete, in order.
    public let done: [String]
    /// How many bytes of the file to keep.
    public let keptBytes: Int

    public init(done: [String], keptBytes: Int) {
        self.done = done
        self.keptBytes = keptBytes
    }

    /// A file that is not a crawl output of this facet, or cannot be read: resuming into it
    /// would cut someone else's data.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads `path`; a missing file is an empty crawl.
    public static func read(path: String, facet: Facet) throws(Invalid) -> ResumeFile {
        guard FileManager.default.fileExists(atPath: path) else {
            return ResumeFile(done: [], keptBytes: 0)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "cannot read \(path)")
        }
        var done: [String] = []
        var kept = 0
        var lineStart = data.startIndex
        let nameKey = Envelope(facet.rawValue, noResults: .strict)
        let errorKey = Envelope("error", noResults: .strict)
        while let newline = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = Data(data[lineStart..<newline])
            let lineNumber = done.count + 1
            let name: String
            do throws(FetchError) {
                guard case .message(let text) = try nameKey.content(of: line) else {
                    throw FetchError(kind: .missingKey, message: "no \"\(facet.rawValue)\" name")
                }
                name = text
                if case .missing = try errorKey.content(of: line) {
                } else {
                    break  // a facet that failed: fetch it, and everything after it, again
                }
            } catch {
                throw Invalid(
                    description: "\(path) line \(lineNumber) is not a batchfetch crawl record by \(facet.rawValue) "
                        + "(\(error.message)); refusing to resume into it")
            }
            done.append(name)
            kept = newline - data.startIndex + 1
            lineStart = data.index(after: newline)
        }
        // What is dropped must be ours too: a torn write is a prefix of a record line, so a file
        // whose unterminated text (or lone line) is anything else is someone else's, not cut.
        let marker = Array("{\"\(facet.rawValue)\":".utf8)
        let tail = data[lineStart...].prefix(marker.count)
        guard tail.elementsEqual(marker.prefix(tail.count)) else {
            throw Invalid(
                description: "\(path) line \(done.count + 1) is not a batchfetch crawl record by \(facet.rawValue); "
                    + "refusing to resume into it")
        }
        return ResumeFile(done: done, keptBytes: kept)
    }
}
