import ArgumentParser
import BatchFetch
import BatchFetchRobotsPolicy
import CocktailDB
import Foundation

/// `batchfetch crawl`: the whole catalogue, fanned out and reassembled in list order.
struct CrawlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crawl",
        abstract: "Crawl TheCocktailDB: every facet value, its drinks, optionally every drink's full record.",
        discussion: """
            Facets come out in list order, each as soon as it is complete, as NDJSON lines such as \
            {"category":"Cocktail","drinks":[…]} (a table when standard output is a terminal). \
            Exit status: 0 complete, 1 some facets failed, 2 usage or resume error, 130 interrupted \
            (143 by SIGTERM, 129 by SIGHUP; complete lines flushed; --resume finishes the file).
            """
    )

    @Option(help: "The API root, with or without the key segment (…/api/json/v1/ or …/api/json/v1/1/).")
    var baseURL: String = CocktailDB.publicBaseURL

    @Option(help: "The API key (fills or replaces the key segment of --base-url).")
    var apiKey: String = "1"

    @Option(help: "The facet to crawl by: category, glass, ingredient or alcoholic.")
    var by: Facet = .category

    @Flag(help: "Fetch every drink's full record (lookup.php?i=).")
    var details = false

    @Flag(help: "Also sweep search.php?f=a…z,0…9 to find drinks the 100-result cap hides, and report coverage.")
    var complete = false

    @Option(help: "Output format: ndjson, json, csv or table (default: table on a terminal, else ndjson).")
    var format: CrawlFormat?

    @Option(name: .shortAndLong, help: "Write to FILE instead of standard output.")
    var output: String?

    @Option(
        help: ArgumentHelp(
            "After the records, save every drink's image in DIR (each once); records name the files.",
            valueName: "DIR"))
    var thumbnails: String?

    @Option(help: "The image size --thumbnails saves: full, small, medium or large.")
    var thumbnailSize: ThumbnailPlan.Size = .full

    @Flag(help: "Continue an interrupted crawl in the -o FILE (NDJSON): complete facets are kept, the rest appended.")
    var resume = false

    @OptionGroup var engine: EngineOptions

    @OptionGroup var writing: WriterOptions

    @OptionGroup var transport: TransportOptions
    @OptionGroup var cache: CacheOptions

    @OptionGroup var report: ReportOptions

    @OptionGroup var robots: RobotsOptions

    @OptionGroup var archiving: WARCOptions

    func validate() throws {
        if self.resume && self.output == nil {
            throw ValidationError("--resume needs -o FILE")
        }
        if self.thumbnails == nil && self.thumbnailSize != .full {
            throw ValidationError("--thumbnail-size needs --thumbnails DIR")
        }
        if self.resume && self.resolvedFormat != .ndjson {
            throw ValidationError("--resume works with --format ndjson only")
        }
        do {
            _ = try CocktailDB(baseURL: self.baseURL, apiKey: self.apiKey)
        } catch {
            throw ValidationError(error.message)
        }
    }

    var resolvedFormat: CrawlFormat {
        self.format ?? (self.output == nil && isatty(1) != 0 ? .table : .ndjson)
    }

    func run() async throws {
        let api = try CocktailDB(baseURL: self.baseURL, apiKey: self.apiKey)
        let resumed = try self.resumed()
        try self.places.check()
        let sink = try self.openOutput(keeping: resumed.keptBytes)
        let writer = CrawlWriter(
            output: CrawlOutput(
                format: self.resolvedFormat, facet: self.by, details: self.details,
                thumbnails: self.thumbnails.map { ThumbnailPlan(directory: $0, size: self.thumbnailSize) }),
            file: sink)
        if resumed.keptBytes == 0 {
            writer.header()
        }
        let options = CrawlOptions(facet: self.by, details: self.details, complete: self.complete, done: resumed.done)
        let progress = CrawlProgress()
        let reporter = ProgressReporter(progress: progress, enabled: self.report.showsProgress)
        let started = Date()
        let configuration = self.configuration(for: api)
        let priority = self.writing.priority
        let archive = try self.archiving.archive(
            userAgent: configuration.userAgent,
            robots: configuration.originPolicy as? RobotsPolicy, resuming: self.resume)
        let run = await CommandRun(progress: reporter) {
            try await Self.crawl(
                api, options, configuration: configuration, writer: writer, progress: progress,
                priority: priority, archive: archive)
        }
        writer.finish()
        let archiveFailed = archive?.finish() ?? false
        try self.finish(
            run, elapsed: Date().timeIntervalSince(started), configuration: configuration,
            archiveFailed: archiveFailed)
    }

    /// What `--resume` keeps of the output file: nothing without it.
    private func resumed() throws -> ResumeFile {
        guard self.resume, let path = self.output else {
            return ResumeFile(done: [], keptBytes: 0)
        }
        do {
            return try ResumeFile.read(path: path, facet: self.by)
        } catch {
            FileHandleOutput.standardError.write("batchfetch: \(error)\n")
            throw ExitCode.usage
        }
    }

    /// What the run reads and writes, checked before the first request.
    private var places: FilePlaces {
        var places = FilePlaces()
        if !self.resume {
            places.outputs.append(.init(flag: "-o", path: self.output ?? "-"))
        }
        if let stats = self.report.stats {
            places.outputs.append(.init(flag: "--stats", path: stats))
        }
        if let thumbnails = self.thumbnails {
            places.folders.append(.init(flag: "--thumbnails", path: thumbnails))
        }
        return places
    }

    /// The engine's configuration: polite to the public API, the transport and cache options.
    private func configuration(for api: CocktailDB) -> Engine.Configuration {
        let polite = api.root.contains("://www.thecocktaildb.com/") || api.root.contains("://thecocktaildb.com/")
        var configuration = self.engine.configuration(polite: polite)
        self.transport.apply(to: &configuration)
        self.transport.warnAboutWeakenedTransport()
        configuration.cache = self.cache.configuration()
        // A signal still writes every facet that the responses already in complete, and saves
        // every image that arrived (issue 51).
        configuration.yieldsAnsweredOnCancel = true
        self.robots.apply(self.robots.policy(cache: self.cache), to: &configuration, userAgentGiven: false)
        self.archiving.apply(to: &configuration)
        return configuration
    }

    /// Crawls on an engine of its own, writing each facet as it completes, then the thumbnails.
    private static func crawl(
        _ api: CocktailDB, _ options: CrawlOptions, configuration: Engine.Configuration, writer: CrawlWriter,
        progress: CrawlProgress, priority: WriterPriority, archive: RunArchive?
    ) async throws -> (CrawlSummary, HTTPCacheStatistics?, ThumbnailPlan.Outcome?) {
        try await withEngine(configuration: configuration) { engine in
            var observer: (@Sendable (FetchResult) -> Void)?
            if let archive {
                observer = { result in _ = archive.archive(result) }
            }
            let crawler = Crawler(client: CocktailDBClient(engine: engine, api: api, observer: observer))
            let summary = try await crawler.crawl(options, progress: progress) { result in
                priority.apply()
                writer.write(result)
            }
            let images = try await writer.thumbnails?.download(with: engine, observer: observer)
            // Shut down here so the cache's counts include its final writes.
            await engine.shutdown()
            return (summary, engine.cacheStatistics, images)
        }
    }

    /// Writes the summaries and the `--stats` file, and ends the run with its exit status.
    private func finish(
        _ run: CommandRun<(CrawlSummary, HTTPCacheStatistics?, ThumbnailPlan.Outcome?)>, elapsed: Double,
        configuration: Engine.Configuration, archiveFailed: Bool
    ) throws {
        var ending = RunEnding()
        ending.signal = run.signal
        let stopped = "interrupted; complete facets are written, --resume finishes the crawl"
        switch run.outcome {
        case .success(let (summary, cache, images)):
            // Also when a signal came as the crawl ended or while the images were saved.
            let statsWritten = self.summarize(
                summary, cache: cache, elapsed: elapsed, interruptedBy: run.signal,
                robots: (configuration.originPolicy as? RobotsPolicy)?.report)
            if let images {
                self.summarize(images)
            }
            if run.interrupted {
                ending.interrupted =
                    images == nil
                    ? "interrupted as the crawl ended; the records are complete"
                    : "interrupted; the records are complete, a re-run saves the images missing"
            }
            ending.someFailed =
                summary.failedFacets > 0 || !summary.sweepFailures.isEmpty || images?.failures.isEmpty == false
                || !statsWritten
        case .failure(let error as CrawlInterrupted):
            ending.interrupted = stopped
            ending.someFailed = !self.summarize(
                error.summary, cache: nil, elapsed: elapsed, interruptedBy: run.signal,
                robots: (configuration.originPolicy as? RobotsPolicy)?.report)
        case .failure(let error) where run.interrupted || error is CancellationError:
            ending.interrupted = stopped
        case .failure(let error as FetchError) where error.kind == .resumeMismatch:
            ending.usage = error.message
        case .failure(let error):
            ending.failure = "crawl failed: \((error as? FetchError)?.description ?? "\(error)")"
        }
        ending.someFailed = ending.someFailed || archiveFailed
        try ending.finish()
    }

    private func openOutput(keeping bytes: Int) throws -> FileHandleOutput {
        guard let path = self.output, self.resume else {
            return try FileHandleOutput.opening(self.output)
        }
        guard let file = FileHandleOutput(appendingTo: path, keeping: bytes) else {
            FileHandleOutput.standardError.write("batchfetch: cannot write to \(path)\n")
            throw ExitCode.usage
        }
        return file
    }

    private func summarize(_ images: ThumbnailPlan.Outcome) {
        guard !self.report.quiet else {
            return
        }
        var text = "thumbnails: \(images.saved) saved, \(images.present) already there, \(images.failures.count) failed"
        text += " (\(self.thumbnails ?? ""))\n"
        for failure in images.failures.prefix(10) {
            text += "  \(failure.url.redactedURL): \(failure.error.kind): \(failure.error.message)\n"
        }
        FileHandleOutput.standardError.write(text)
    }

    /// Writes the summary and the `--stats` file. - Returns: whether the stats file, if asked
    /// for, was written.
    private func summarize(
        _ summary: CrawlSummary, cache: HTTPCacheStatistics?, elapsed: Double, interruptedBy signal: Int32?,
        robots: [RobotsOriginReport]?
    ) -> Bool {
        let rate = elapsed > 0 ? Double(summary.requests) / elapsed : 0
        if !self.report.quiet {
            var text =
                "crawl: \(summary.emitted) of \(summary.facets) \(self.by.rawValue) facets, \(summary.drinks) drinks"
            if self.complete {
                text += " (\(summary.sweepOnlyDrinks) found only by the sweep)"
            }
            text += String(format: " in %.2f s", elapsed)
            text += signal.map { "; interrupted by \(InterruptHandler.name(of: $0))\n" } ?? "\n"
            text += String(
                format: "requests: %d (%d retries, %d failed), %.0f req/s, %.1f MB\n", summary.requests,
                summary.retries,
                summary.failedRequests, rate, Double(summary.bytes) / 1e6)
            if summary.failedFacets > 0 {
                text += "failed facets: \(summary.failedFacets) (their lines carry an \"error\" object)\n"
            }
            for failure in summary.sweepFailures {
                text += "sweep failed: \(failure)\n"
            }
            if let cache {
                text += CacheOptions.summary(cache)
            }
            if let robots {
                text += RobotsOptions.summary(robots)
            }
            FileHandleOutput.standardError.write(text)
        }
        return self.report.writeStats(
            CrawlStats(
                summary: summary, elapsedSeconds: elapsed, requestsPerSecond: rate, cache: cache,
                interrupted: signal != nil, robots: robots))
    }
}
