import ArgumentParser
import BatchFetch
import BatchFetchMerge
import BatchFetchRobotsPolicy
import BatchFetchWARC
import DequeModule
import Foundation
import Synchronization

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

    @Flag(
        help: "With --warc: also write a CDXJ index (pywb's form) beside each file, as FILE minus .warc(.gz) + .cdxj.")
    var warcCdx = false

    @Option(
        help: ArgumentHelp(
            """
            With --warc: start a new file, NAME-00001.warc.gz, NAME-00002.warc.gz, …, each with its own warcinfo, \
            once one holds SIZE bytes (K, M, G: powers of 1000; KiB, MiB, GiB: of 1024).
            """, valueName: "SIZE"),
        transform: WARCOptions.size(parsing:))
    var warcMaxSize: Int64 = WARCOptions.defaultMaxSize

    /// 1 GB, WARC 1.1's advice for a file's size.
    static let defaultMaxSize: Int64 = 1_000_000_000

    @Flag(
        help: """
            With --warc: a 2xx payload already archived in this run (or in --warc-dedup-index) is written as a \
            revisit record pointing at it, not stored again.
            """)
    var warcDedup = false

    @Option(
        help: ArgumentHelp(
            "With --warc: a CDXJ index of earlier captures (e.g. an earlier run's --warc-cdx) to deduplicate against.",
            valueName: "FILE"))
    var warcDedupIndex: String?

    /// `500M`, `1G`, `64KiB` or a plain number of bytes.
    static func size(parsing text: String) throws -> Int64 {
        try self.size(parsing: text, flag: "--warc-max-size")
    }

    /// `500M`, `1G`, `64KiB` or a plain number of bytes, given to `flag`.
    static func size(parsing text: String, flag: String) throws -> Int64 {
        let units: [(String, Int64)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("K", 1000), ("M", 1_000_000), ("G", 1_000_000_000),
            ("", 1),
        ]
        for (unit, scale) in units where text.hasSuffix(unit) {
            guard let number = Int64(text.dropLast(unit.count)), number > 0,
                case let (bytes, overflow) = number.multipliedReportingOverflow(by: scale), !overflow
            else {
                break
            }
            return bytes
        }
        throw ValidationError(
            "\(flag) '\(text)' is not a size: give bytes, or a number with K, M, G, KiB, MiB or GiB")
    }

    func validate() throws {
        guard let path = self.warc else {
            if self.warcCdx || self.warcDigest != .sha1 || self.warcMaxSize != Self.defaultMaxSize || self.warcDedup
                || self.warcDedupIndex != nil
            {
                throw ValidationError("--warc-cdx, --warc-digest, --warc-max-size and --warc-dedup need --warc FILE")
            }
            return
        }
        if path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("--warc needs a file name, e.g. --warc crawl.warc.gz")
        }
    }

    /// Has the engine gather what the archive keeps: every exchange, and the TLS version of each.
    func apply(to configuration: inout Engine.Configuration) {
        if self.warc != nil {
            configuration.details.formUnion([.exchanges, .tls])
            configuration.exchangeBodyHash = self.warcDigest.bodyHashAlgorithm
        }
    }

    /// The archive these flags ask for, its warcinfo naming the run; `nil` without `--warc`.
    /// - Parameter resuming: with `--resume`: the series' files a killed run left open are finished
    ///   first (``WARCRecovery``), and this run writes the series' next free name, so that the
    ///   records kept from the earlier run still point at their exchanges.
    /// - Throws: ``ExitCode/usage`` when the file cannot be made (it exists, or its folder does not).
    func archive(userAgent: String, robots: RobotsPolicy?, resuming: Bool = false) throws -> RunArchive? {
        guard let path = self.warc else {
            return nil
        }
        let firstNumber = resuming ? try Self.finishOpenFiles(of: path, indexes: self.warcCdx) : 0
        var fields = [
            WARCField("libcurl", BatchFetch.libcurlVersion),
            WARCField("http-header-user-agent", userAgent),
            WARCField("robots", robots.map { "\($0.mode)" } ?? "ignore"),
            WARCField("command", ShardManifest.redacting(arguments: CommandLine.arguments).joined(separator: " ")),
        ]
        if let host = ProcessInfo.processInfo.hostName as String?, !host.isEmpty {
            fields.append(WARCField("hostname", host))
        }
        do throws(WARCError) {
            var dedup: [String: WARCArchive.Capture]? = self.warcDedup ? [:] : nil
            if let index = self.warcDedupIndex {
                dedup = try WARCArchive.captures(inIndex: index)
            }
            return RunArchive(
                try WARCArchive(
                    path: path, digest: self.warcDigest, software: "batchfetch/\(BatchFetch.version)", fields: fields,
                    indexes: self.warcCdx, maxSize: self.warcMaxSize, dedup: dedup, firstNumber: firstNumber),
                robots: robots)
        } catch {
            FileHandleOutput.standardError.write("batchfetch: --warc: \(error)\n")
            throw ExitCode.usage
        }
    }
}

extension WARCOptions {
    /// Finishes the `.open` files of `path`'s series, saying so on standard error.
    /// - Returns: the number of the series' first free name.
    /// - Throws: ``ExitCode/usage`` when one cannot be finished.
    static func finishOpenFiles(of path: String, indexes: Bool) throws -> Int {
        for open in WARCArchive.openFiles(in: path) {
            do throws(WARCError) {
                let outcome = try WARCRecovery.finish(openPath: open, indexes: indexes)
                let cut = outcome.cutBytes > 0 ? ", the \(outcome.cutBytes) bytes of a record cut short dropped" : ""
                FileHandleOutput.standardError.write(
                    "batchfetch: --warc: finished \(outcome.path), left open by an earlier run: "
                        + "\(outcome.records) whole records kept\(cut)\n")
            } catch {
                FileHandleOutput.standardError.write("batchfetch: --warc: cannot finish \(open): \(error)\n")
                throw ExitCode.usage
            }
        }
        return WARCArchive.firstFreeNumber(in: path)
    }
}

/// The WARC a run writes, and the first error that stopped it: records go on being written, the
/// run ends with status 1 and says how far the archive got. `fetch` archives from its record
/// writer; `crawl` from its tasks, hence the lock (uncontended in `fetch`).
final class RunArchive: Sendable {
    private struct State {
        let archive: WARCArchive
        var failure: WARCError?
        var archivedResults = 0
        /// Where the latest results' responses went, by index, for the copies their transfers
        /// answered (``FetchResult/sharedWith``): an owner is always archived before its copies.
        var recent: [Int: WARCArchive.Location] = [:]
        var recentOrder = Deque<Int>()
    }

    /// How many owners' locations are kept for later copies (a copy the replay cache answers
    /// after more records than this have been archived gets `null`).
    static let recentLocations = 65_536

    private let state: Mutex<State>
    /// robots.txt's own exchanges (`--robots`), archived before the next result's.
    private let robots: RobotsPolicy?

    init(_ archive: sending WARCArchive, robots: RobotsPolicy?) {
        self.state = Mutex(State(archive: archive))
        self.robots = robots
    }

    /// Archives `result`'s exchanges. - Returns: where its last response went, `nil` when it had
    /// none or the archive has failed.
    func archive(_ result: FetchResult) -> WARCArchive.Location? {
        let preflights = self.robots?.takeExchanges() ?? []
        let exchanges = result.sharedWith == nil ? result.details?.exchanges ?? [] : []
        guard !exchanges.isEmpty || !preflights.isEmpty || result.sharedWith != nil else {
            return nil
        }
        return self.state.withLock { state in
            guard state.failure == nil else {
                return nil
            }
            do throws(WARCError) {
                _ = try state.archive.archive(preflights)
                if let owner = result.sharedWith {
                    // Its bytes are the owner's: the same response record.
                    return state.recent[owner]
                }
                guard !exchanges.isEmpty, let location = try state.archive.archive(exchanges) else {
                    return nil
                }
                state.archivedResults += 1
                state.recent[result.index] = location
                state.recentOrder.append(result.index)
                if state.recentOrder.count > Self.recentLocations, let oldest = state.recentOrder.popFirst() {
                    state.recent[oldest] = nil
                }
                return location
            } catch {
                state.failure = error
                return nil
            }
        }
    }

    /// Closes the file and writes its index; says on standard error how far a failed archive got.
    /// - Returns: whether the archive failed (the run then ends with status 1).
    func finish() -> Bool {
        guard let failure = self.close() else {
            return false
        }
        FileHandleOutput.standardError.write(failure + "\n")
        return true
    }

    private func close() -> String? {
        let preflights = self.robots?.takeExchanges() ?? []
        return self.state.withLock { state in
            do throws(WARCError) {
                if state.failure == nil {
                    _ = try state.archive.archive(preflights)
                }
                try state.archive.close()
            } catch {
                state.failure = state.failure ?? error
            }
            guard let failure = state.failure else {
                return nil
            }
            return
                "batchfetch: --warc: \(failure); the exchanges of \(state.archivedResults) results were archived before it"
        }
    }
}
