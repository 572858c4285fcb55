import BatchFetch
import BatchFetchFiles
import BatchFetchRobotsPolicy
import Foundation

/// The steps of `fetch`'s run: its input, the batch through an engine, and how it ends.
extension FetchCommand {
    /// The input lines as requests, with `--skip-existing` and `--shard` (returned too) applied.
    /// - Parameter kept: the lines whose records `--resume` keeps, which are not fetched again.
    func openInput(keeping kept: Set<Int>) throws -> (source: FetchInput, shard: Shard?) {
        var skip: LineSelector.Skip?
        if self.skipExisting, let directory = self.saveDir, let template = try? FileNameTemplate(parsing: self.fileName)
        {
            skip = { index, url in
                kept.contains(index) || BodyFileStore.isSaved(in: directory, template: template, index: index, url: url)
            }
        } else if !kept.isEmpty {
            skip = { index, _ in kept.contains(index) }
        }
        let fields = try RequestTemplate.fields(try self.headerFields(), json: self.request.json != nil, user: nil)
        let split = self.sharding.resolvedReporting()
        let source = try FetchInput.open(
            urls: self.urls, path: self.input, shard: split, skip: skip,
            lines: try self.request.lines(fields: fields))
        return (source, split)
    }

    /// The progress line: records, ok, failed, and the request rate.
    static func progress(of tally: FetchTally, enabled: Bool) -> ProgressReporter {
        ProgressReporter(enabled: enabled) { elapsed in
            let s = tally.snapshot
            return String(
                format: "records %d · ok %d · failed %d · %.0f req/s", s.records, s.records - s.failed, s.failed,
                elapsed > 0 ? Double(s.requests) / elapsed : 0)
        }
    }

    /// Fetches every request of `source` on an engine of its own and writes their records.
    /// - Returns: what the cache did, when there is one.
    static func fetch(
        _ source: FetchInput, order: RecordOrder, configuration: Engine.Configuration, writer: RecordWriter,
        tally: FetchTally, sink: FileHandleOutput, priority: WriterPriority, kept: KeptRecords
    ) async throws -> HTTPCacheStatistics? {
        try await withEngine(configuration: configuration) { engine in
            var writer = writer
            if order == .completion {
                Self.copy(kept.due(before: nil), after: &writer, to: sink, tally: tally)
            }
            switch source.source {
            case .arguments, .file:
                let requests = source.lazyRequests()
                let results = order == .input ? engine.orderedResults(for: requests) : engine.results(for: requests)
                var iterator = results.makeAsyncIterator()
                await Self.write(
                    &iterator, writer: &writer, input: source, tally: tally, sink: sink, priority: priority, kept: kept)
            case .standardInput(let stream):
                let results =
                    order == .input ? engine.orderedResults(streaming: stream) : engine.results(streaming: stream)
                var iterator = results.makeAsyncIterator()
                await Self.write(
                    &iterator, writer: &writer, input: source, tally: tally, sink: sink, priority: priority, kept: kept)
                stream.cancel()
            }
            Self.copy(kept.due(before: nil), after: &writer, to: sink, tally: tally)
            Self.drain(&writer, to: sink, tally: tally)
            // Shut down here (withEngine's own call is then a no-op) so the cache's counts
            // include its final writes.
            await engine.shutdown()
            let hosts = engine.hostStatistics
            tally.hosts.withLock { $0 = hosts }
            if let robots = configuration.originPolicy as? RobotsPolicy {
                tally.robots.withLock { $0 = robots.report }
            }
            return engine.cacheStatistics
        }
    }

    /// Writes kept records (`--resume`) after the records `writer` holds.
    static func copy(_ lines: Data, after writer: inout RecordWriter, to sink: FileHandleOutput, tally: FetchTally) {
        guard !lines.isEmpty else {
            return
        }
        Self.drain(&writer, to: sink, tally: tally)
        lines.withUnsafeBytes { sink.write([$0]) }
    }

    /// Writes the summary, the `--stats` file and the shard manifest, and ends the run with its
    /// exit status.
    func finish(
        _ run: CommandRun<HTTPCacheStatistics?>, source: FetchInput, tally: FetchTally, sink: FileHandleOutput,
        kept: (records: KeptRecords, replaced: Bool)?, elapsed: Double, archiveFailed: Bool = false
    ) throws {
        let summary = tally.snapshot
        var finished = !run.interrupted && sink.failure == nil
        if case .failure = run.outcome {
            finished = false
        }
        let shard = source.shardManifest(
            path: self.input, order: self.order, records: summary.records, complete: finished, output: self.output)
        var lost: OutputLoss?
        if let failure = sink.failure {
            // What the output lacks: records fetched and not written whole, and lines never fetched.
            // A closed pipe is said as a full disk is: its reader may be gone, the summary and
            // `--stats` are not.
            let produced = summary.records + summary.unwritten
            lost = OutputLoss(
                error: String(cString: strerror(failure)), unwritten: summary.unwritten,
                unfetched: source.requestCount().map { max(0, $0 - produced) }, readerGone: failure == EPIPE)
        }
        let statsWritten = self.summarize(
            summary, skipped: self.skipExisting ? source.skipped.value : nil, cache: try? run.outcome.get(),
            elapsed: elapsed, shard: shard, hosts: tally.hosts.withLock { $0 }, interruptedBy: run.signal, lost: lost,
            kept: kept?.records, robots: self.robots.robots != nil ? tally.robots.withLock { $0 } : nil)
        var ending = RunEnding()
        // The reader went away (a closed pipe, as with `| head`) or the disk is full.
        ending.unwritten = sink.failure
        ending.interrupted = run.interrupted ? "" : nil
        ending.signal = run.signal
        if case .failure(let error) = run.outcome {
            ending.failure = "\(error)"
        }
        ending.usage = source.readFailure.value.map { "\($0); the records of the lines before are written" }
        // Kept failures count as a whole run would have counted them; a file not replaced failed.
        ending.someFailed =
            summary.failures > 0 || !statsWritten || archiveFailed
            || (kept.map { $0.records.failures > 0 || !$0.replaced } ?? false)
        try ending.finish()
    }
}

/// What a failed output left out (``FetchStats/outputError`` and the two counts after it).
struct OutputLoss {
    /// The write's error, as `strerror` says it.
    let error: String
    /// Records fetched and not written whole.
    let unwritten: Int
    /// Input lines never fetched; `nil` for standard input, whose rest is not read.
    let unfetched: Int?
    /// The output's reader went away (`EPIPE`): the run was cut short from outside, as by a
    /// signal, so it counts as interrupted.
    let readerGone: Bool
}
