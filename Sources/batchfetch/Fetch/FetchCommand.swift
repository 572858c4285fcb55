import ArgumentParser
import BatchFetch
import BatchFetchFiles
import BatchFetchMerge
import BatchFetchRobotsPolicy
import Foundation

/// `batchfetch fetch`: one JSON line per input URL.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch URLs and write one JSON record per URL (NDJSON).",
        discussion: """
            URLs come from the arguments, from -i FILE, or from standard input (-i - or a pipe; records \
            flow while the pipe is open); one per line, blank lines and lines starting with # skipped. \
            A line starting with { is a JSON request (--input-format): {"url":…, "method", "headers", \
            "body" | "body_text" | "body_base64" | "body_file", "id", "meta"}; the flags -X, -H, -d apply \
            to every line, a line's own fields win. Each record: index (0-based among request lines), id \
            and meta when the line had them, url, status, ok, attempts, bytes, time_ms (the last \
            attempt), total_ms (the whole request: every attempt and the waits before retries), \
            content_type, body, error (a line that is not a valid request: invalidRequest); --fields adds \
            response facts after them (headers, redirects, timings, remote, tls, attempts). Identical \
            requests are sent once: the others' records carry shared_with (the index of the record whose \
            transfer answered them) and attempts 0. Exit status: 0 all ok, 1 some failed, 2 usage, \
            unreadable input or an output that cannot be written or is an input file (checked before the \
            first request), 130 interrupted by SIGINT, 143 by SIGTERM, 129 by SIGHUP (records so far flushed; \
            -o FILE --resume then fetches only what has no final record).
            """
    )

    @Argument(help: "URLs to fetch (instead of, or before, -i).")
    var urls: [String] = []

    @Option(name: .shortAndLong, help: "Read URLs from FILE, one per line ('-' = standard input).")
    var input: String?

    @Option(name: .shortAndLong, help: "Write records to FILE instead of standard output.")
    var output: String?

    @Option(help: "Record order: input (as read, bounded memory) or completion (as they finish).")
    var order: RecordOrder = .input

    @Option(help: "Bodies in records: auto (JSON embedded, text a string, binary base64), json, text, base64 or none.")
    var body: RecordWriter.BodyMode = .auto

    @Option(
        name: .customLong("save-dir"),
        help: ArgumentHelp(
            "Save each ok body to its own file in DIR; records carry file and sha256 instead of body.",
            valueName: "DIR"))
    var saveDir: String?

    @Option(
        help: "File names in --save-dir: text and {index}, {name} (the URL's last path segment, made safe), {sha256}."
    )
    var fileName: String = FileNameTemplate.standard.description

    @Flag(help: "With --save-dir: fetch only the URLs whose file is not there yet.")
    var skipExisting = false

    @Flag(
        help: """
            With -o FILE: keep FILE's complete records (ok, or failed for good) and fetch only the rest, \
            writing FILE as one whole run would; FILE.batchfetch.json must show the same input and options.
            """)
    var resume = false

    @Option(
        name: [.customLong("fields"), .customLong("include")],
        help: ArgumentHelp(
            "Add response facts to each record: headers, redirects, timings, remote, tls, attempts, robots, warc, or all.",
            valueName: "LIST"),
        transform: RecordFields.init(parsing:))
    var fields: [RecordFields] = []

    /// The facts records carry: `--fields`, and the headers with `-I`, as curl -I shows them.
    private var recordFields: RecordFields {
        RecordFields(self.fields).union(self.request.head ? .headers : [])
    }

    @Option(help: "Keep only the value at this JSON key path (e.g. drinks, feed.results).")
    var contentPath: String?

    @Option(help: "Statuses that count as ok, e.g. 200-299,304.")
    var status: String = "200-299"

    @OptionGroup var engine: EngineOptions

    @OptionGroup var writing: WriterOptions

    @OptionGroup var deduplication: DeduplicationOptions

    @OptionGroup var transport: TransportOptions

    @OptionGroup var request: RequestOptions

    @Option(name: [.customShort("H"), .long], help: "Extra header 'Name: value' (repeatable; CR/LF refused).")
    var header: [String] = []

    @Option(help: "The User-Agent header.")
    var userAgent: String?

    @Option(
        name: [.customLong("follow")],
        help: ArgumentHelp(
            "Follow redirects, at most N (--follow=N; --follow, -L or --location alone: 10).", valueName: "N"))
    var follow: Int?

    @OptionGroup var sharding: ShardOptions

    @Option(
        parsing: .unconditional,
        help: "Body bytes accepted per response (default 64 MiB; 8 GiB with --save-dir, unless --cache or --warc).")
    var maxBody: Int?

    @Option(
        help: ArgumentHelp(
            """
            Split the last large downloads into byte ranges over extra connections when slots are free and \
            nothing waits (as aria2c -s/-k): a download with at least twice SIZE left gives half of it to a new \
            connection (Range, If-Range). For 200s with a length, Accept-Ranges: bytes and an ETag or \
            Last-Modified; not with --save-dir, --cache or --warc. SIZE: bytes, or K, M, G, KiB, MiB, GiB. Off by default.
            """, valueName: "SIZE"),
        transform: { try WARCOptions.size(parsing: $0, flag: "--split-min") })
    var splitMin: Int64?

    @OptionGroup var cache: CacheOptions

    @OptionGroup var report: ReportOptions

    @OptionGroup var robots: RobotsOptions

    @OptionGroup var archiving: WARCOptions

    func validate() throws {
        do throws(FetchError) {
            _ = try StatusPolicy(parsing: self.status)
            _ = try self.headerFields()
        } catch {
            throw ValidationError(error.message)
        }
        if let follow = self.follow, follow < 0 {
            throw ValidationError("--follow \(follow) is out of range: give 0 or more redirects")
        }
        if let maxBody = self.maxBody, maxBody < 1 {
            throw ValidationError("--max-body \(maxBody) is out of range: give a positive number of bytes")
        }
        if let agent = self.userAgent, agent.utf8.contains(where: { $0 < 0x20 }) {
            throw ValidationError("--user-agent must not contain control characters")
        }
        let template: FileNameTemplate
        do throws(FetchError) {
            template = try FileNameTemplate(parsing: self.fileName)
        } catch {
            throw ValidationError(error.message)
        }
        if self.saveDir != nil && (self.body != .auto || self.contentPath != nil) {
            throw ValidationError("--save-dir saves whole bodies: it takes no --body or --content-path")
        }
        if self.resume && (self.output == nil || self.output == "-") {
            throw ValidationError("--resume needs -o FILE: the records file to finish")
        }
        if self.resume && (self.input == "-" || (self.input == nil && self.urls.isEmpty)) {
            throw ValidationError(
                "--resume needs the input as -i FILE or URL arguments: standard input cannot be read again")
        }
        if self.skipExisting && (self.saveDir == nil || template.dependsOnContent) {
            throw ValidationError(
                "--skip-existing needs --save-dir and file names known before fetching (no {sha256})")
        }
        if self.archiving.warc == nil && self.recordFields.contains(.warc) {
            throw ValidationError("--fields warc needs --warc FILE")
        }
    }

    func headerFields() throws(FetchError) -> [HeaderField] {
        var fields: [HeaderField] = []
        for line in self.header {
            fields.append(try HeaderField(parsing: line))
        }
        return fields
    }

    /// - Parameter shards: N of `--shard`, whose share of the job's rates this run takes.
    private func configuration(files: BodyFileStore?, shards: Int, robots: RobotsPolicy?) throws
        -> Engine.Configuration
    {
        var configuration = self.engine.configuration(shares: shards)
        self.deduplication.apply(to: &configuration)
        configuration.headers = try self.headerFields()
        try self.request.apply(to: &configuration)
        if let agent = self.userAgent {
            configuration.userAgent = agent
        }
        self.transport.apply(to: &configuration)
        if let follow = self.follow {
            configuration.redirects = .follow(max: follow)
        }
        if let maxBody = self.maxBody {
            configuration.maxBodyBytes = maxBody
            configuration.maxSavedBodyBytes = maxBody
        }
        configuration.cache = self.cache.configuration()
        configuration.splitMinimum = self.splitMin.map { Int(clamping: $0) }
        // Bodies stream into their files as they arrive, none held whole in memory; with --warc
        // the archive needs each body as received (its content coding kept), so it stays in
        // memory (--max-body's limit) and its file is written, decoded, from there.
        configuration.bodyFolder = self.archiving.warc == nil ? files?.folder : nil
        // Records without bodies need only their size: libcurl's bytes are counted, not copied.
        configuration.keepsBodies = self.body != .none || self.contentPath != nil
        configuration.details = self.recordFields.engineDetails
        self.archiving.apply(to: &configuration)
        // A signal ends the batch with every response that arrived written (issue 51).
        configuration.yieldsAnsweredOnCancel = true
        self.robots.apply(robots, to: &configuration, userAgentGiven: self.userAgent != nil)
        return configuration
    }

    func run() async throws {
        self.transport.warnAboutWeakenedTransport()
        let sidecar = try self.sidecar()
        let kept = try self.keptRecords(sidecar: sidecar)
        let (source, split) = try self.openInput(keeping: kept.indices)
        try self.places.check()
        let files = try self.fileStore()
        let robots = self.robots.policy(cache: self.cache)
        let configuration = try self.configuration(files: files, shards: split?.count ?? 1, robots: robots)
        // A resumed run writes beside FILE and replaces it at the end: FILE stays whole meanwhile.
        let replacing = !kept.lines.isEmpty
        let sink = try FileHandleOutput.opening(replacing ? self.output.map(Self.resumingPath) : self.output)
        self.write(sidecar)
        let archive = try self.archiving.archive(
            userAgent: configuration.userAgent, robots: robots, resuming: self.resume)
        let writer = RecordWriter(
            bodyMode: self.body, status: try StatusPolicy(parsing: self.status), contentPath: self.contentPath,
            cacheField: configuration.cache != nil, files: files,
            fields: self.recordFields.union(robots?.mode == .report ? .robots : []), robots: robots, archive: archive)
        let tally = FetchTally()
        let reporter = Self.progress(of: tally, enabled: self.report.showsProgress)
        let started = Date()
        let order = self.order
        let priority = self.writing.priority
        let run = await CommandRun(progress: reporter) {
            try await Self.fetch(
                source, order: order, configuration: configuration, writer: writer, tally: tally, sink: sink,
                priority: priority, kept: kept)
        }
        sink.flush()
        let archiveFailed = archive?.finish() ?? false
        let replaced = replacing && self.replaceOutput(kept: kept, sink: sink)
        try self.finish(
            run, source: source, tally: tally, sink: sink, kept: replacing ? (kept, replaced) : nil,
            elapsed: Date().timeIntervalSince(started), archiveFailed: archiveFailed)
    }

    /// What the run reads and writes, checked before the first request.
    private var places: FilePlaces {
        var places = FilePlaces()
        if let input = self.input {
            places.inputs.append(.init(flag: "-i", path: input))
        } else if self.urls.isEmpty {
            places.inputs.append(.init(flag: "standard input", path: "-"))
        }
        places.outputs.append(.init(flag: "-o", path: self.output ?? "-"))
        if let stats = self.report.stats {
            places.outputs.append(.init(flag: "--stats", path: stats))
        }
        if let saveDir = self.saveDir {
            places.folders.append(.init(flag: "--save-dir", path: saveDir))
        }
        if let jar = self.request.cookieJar {
            places.outputs.append(.init(flag: "--cookie-jar", path: jar))
        }
        return places
    }

    /// Writes the records of a batch's results as they come, until the batch ends or the output
    /// fails.
    static func write<Results: BatchResultsIterator>(
        _ results: inout Results, writer: inout RecordWriter, input: FetchInput, tally: FetchTally,
        sink: FileHandleOutput, priority: WriterPriority, kept: KeptRecords
    ) async {
        while sink.failure == nil, let result = await results.next() {
            priority.apply()
            // Taken once: the index map forgets an entry as it gives it.
            let global = input.globalIndex(of: result.index)
            // In input order, the kept records (`--resume`) that come before this one.
            Self.copy(kept.due(before: global), after: &writer, to: sink, tally: tally)
            Self.record(
                result, global: global, writer: &writer, input: input, tally: tally, sink: sink,
                idle: results.readyCount == 0)
        }
    }

    /// Writes one record; the buffer goes out in 64 KB chunks, or whenever the next result is not
    /// ready yet (`idle`), so records reach a pipe as they complete without a write per record.
    private static func record(
        _ result: FetchResult, global: Int, writer: inout RecordWriter, input: FetchInput, tally: FetchTally,
        sink: FileHandleOutput, idle: Bool
    ) {
        let note = input.note(of: result.index)
        var result = result
        if let problem = note?.problem {
            // The line's own reason, in place of the engine's refusal of its empty URL.
            result = FetchResult(
                index: result.index, request: Request(note?.url ?? ""), outcome: .failure(problem), attempts: 0,
                cache: result.cache)
        }
        let kind = writer.write(
            result, index: global, sharedWith: input.globalIndex(ofOwnerOf: result),
            echo: note?.echo ?? [])
        tally.count(result, failure: kind)
        if writer.pendingBytes >= 1 << 16 || idle {
            Self.drain(&writer, to: sink, tally: tally)
        }
    }

    /// Writes out what `writer` holds, and counts the records written whole.
    static func drain(_ writer: inout RecordWriter, to sink: FileHandleOutput, tally: FetchTally) {
        let failedBefore = sink.failure != nil
        writer.drain(to: sink)
        let whole = failedBefore ? 0 : sink.failure == nil ? Int.max : sink.linesInFailedWrite
        tally.settle(written: whole)
    }

    /// The folder of `--save-dir`, opened (created if needed). - Throws: ``ExitCode/usage`` when it
    /// cannot be.
    private func fileStore() throws -> BodyFileStore? {
        guard let directory = self.saveDir else {
            return nil
        }
        do throws(FetchError) {
            return try BodyFileStore(directory: directory, template: try FileNameTemplate(parsing: self.fileName))
        } catch {
            FileHandleOutput.standardError.write("batchfetch: \(error.message)\n")
            throw ExitCode.usage
        }
    }

    /// Writes the summary and the `--stats` file. - Returns: whether the stats file, if asked
    /// for, was written.
    func summarize(
        _ summary: FetchTally.Snapshot, skipped: Int?, cache: HTTPCacheStatistics?, elapsed: Double,
        shard: ShardManifest?, hosts: [String: HostCounts], interruptedBy signal: Int32?, lost: OutputLoss? = nil,
        kept: KeptRecords? = nil, robots: [RobotsOriginReport]? = nil
    ) -> Bool {
        let rate = elapsed > 0 ? Double(summary.requests) / elapsed : 0
        if !self.report.quiet {
            var text = String(
                format: "fetch: %d records, %d ok, %d failed in %.2f s (%.0f req/s, %.1f MB)", summary.records,
                summary.records - summary.failed, summary.failed, elapsed, rate, Double(summary.bytes) / 1e6)
            if let signal {
                text += "; interrupted by \(InterruptHandler.name(of: signal))\n"
            } else if lost?.readerGone == true {
                text += "; interrupted: the output's reader went away\n"
            } else {
                text += "\n"
            }
            for (kind, count) in summary.failuresByKind.sorted(by: { $0.key < $1.key }) {
                text += "  \(kind): \(count)\n"
            }
            if let lost {
                text += "  not written (\(lost.error)): \(lost.unwritten) fetched, "
                text += lost.unfetched.map { "\($0) input lines never fetched\n" } ?? "the rest of the input not read\n"
            }
            if let skipped {
                text += "  skipped, already saved: \(skipped)\n"
            }
            if let kept {
                text += "  kept from \(self.output ?? "-") (--resume): \(kept.lines.count) records, \(kept.ok) ok, "
                text += "\(kept.failed) failed for good\n"
            }
            if let cache {
                text += CacheOptions.summary(cache)
            }
            text += EngineOptions.summary(hosts)
            text += RobotsOptions.summary(robots ?? [])
            FileHandleOutput.standardError.write(text)
        }
        return self.report.writeStats(
            FetchStats(
                records: summary.records, ok: summary.records - summary.failed, failed: summary.failed,
                failuresByKind: summary.failuresByKind, requests: summary.requests, retries: summary.retries,
                bytes: summary.bytes, elapsedSeconds: elapsed, requestsPerSecond: rate,
                protocols: summary.protocols, cache: cache, skipped: skipped, shard: shard,
                hosts: hosts.isEmpty ? nil : hosts, interrupted: signal != nil || lost?.readerGone == true,
                outputError: lost?.error, unwritten: lost?.unwritten, unfetched: lost?.unfetched,
                kept: kept?.lines.count, robots: robots))
    }
}
