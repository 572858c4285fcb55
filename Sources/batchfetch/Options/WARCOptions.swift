import ArgumentParser
import BatchFetch
import BatchFetchMerge
import BatchFetchWARC
import Foundation

extension WARCDigest: ExpressibleByArgument {}

/// `--warc FILE`, `--warc-digest`, `--warc-cdx`: every exchange kept as WARC 1.1 beside the
/// records (docs/WARC.md).
struct WARCOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Also keep every request and response as sent and received in FILE, WARC 1.1: FILE.warc.gz a gzip \
            member per record, FILE.warc uncompressed; written as FILE.open until the run ends.
            """, valueName: "FILE"))
    var warc: String?

    @Option(help: "With --warc: the digests' hash, sha1 (base32, as dedup tools expect) or sha256.")
    var warcDigest: WARCDigest = .sha1

    @Flag(help: "With --warc: also write a CDXJ index (pywb's form) beside FILE, as FILE minus .warc(.gz) + .cdxj.")
    var warcCdx = false

    func validate() throws {
        guard let path = self.warc else {
            if self.warcCdx || self.warcDigest != .sha1 {
                throw ValidationError("--warc-cdx and --warc-digest need --warc FILE")
            }
            return
        }
        if path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("--warc needs a file name, e.g. --warc crawl.warc.gz")
        }
    }

    /// Where the index goes: FILE without `.warc.gz` or `.warc`, with `.cdxj`.
    var indexPath: String? {
        guard self.warcCdx, let path = self.warc else {
            return nil
        }
        for suffix in [".warc.gz", ".warc"] where path.hasSuffix(suffix) {
            return String(path.dropLast(suffix.count)) + ".cdxj"
        }
        return path + ".cdxj"
    }

    /// The archive these flags ask for, its warcinfo naming the run; `nil` without `--warc`.
    /// - Throws: ``ExitCode/usage`` when the file cannot be made (it exists, or its folder does not).
    func archive(userAgent: String, robots: String?) throws -> WARCArchive? {
        guard let path = self.warc else {
            return nil
        }
        var fields = [
            WARCField("libcurl", BatchFetch.libcurlVersion),
            WARCField("http-header-user-agent", userAgent),
            WARCField("robots", robots ?? "ignore"),
            WARCField("command", ShardManifest.redacting(arguments: CommandLine.arguments).joined(separator: " ")),
        ]
        if let host = ProcessInfo.processInfo.hostName as String?, !host.isEmpty {
            fields.append(WARCField("hostname", host))
        }
        do throws(WARCError) {
            return try WARCArchive(
                path: path, digest: self.warcDigest, software: "batchfetch/\(BatchFetch.version)", fields: fields,
                indexPath: self.indexPath)
        } catch {
            FileHandleOutput.standardError.write("batchfetch: --warc: \(error)\n")
            throw ExitCode.usage
        }
    }
}

/// The WARC a run writes, and the first error that stopped it: records go on being written, the
/// run ends with status 1 and says how far the archive got.
final class RunArchive: @unchecked Sendable {
    let archive: WARCArchive
    /// Set by the record writer's thread; read after the run.
    private(set) var failure: WARCError?
    private(set) var archivedResults = 0

    init(_ archive: WARCArchive) {
        self.archive = archive
    }

    /// Archives `result`'s exchanges. - Returns: where its last response went, `nil` when it had
    /// none or the archive has failed.
    func archive(_ result: FetchResult) -> WARCArchive.Location? {
        guard self.failure == nil, result.sharedWith == nil, let exchanges = result.details?.exchanges,
            !exchanges.isEmpty
        else {
            return nil
        }
        do throws(WARCError) {
            let location = try self.archive.archive(exchanges)
            self.archivedResults += 1
            return location
        } catch {
            self.failure = error
            return nil
        }
    }

    /// Closes the file and writes its index. - Returns: the line for standard error when the
    /// archive failed, `nil` when it is whole.
    func close() -> String? {
        do throws(WARCError) {
            try self.archive.close()
        } catch {
            self.failure = self.failure ?? error
        }
        guard let failure = self.failure else {
            return nil
        }
        return "batchfetch: --warc: \(failure); the records of \(self.archivedResults) results were archived before it"
    }
}
