import ArgumentParser
import BatchFetch
import BatchFetchBench
import Foundation

/// `batchfetch bench [run]`: send URLs over and over and report latency and throughput.
struct BenchRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure an HTTP server: send URLs over and over, report latency percentiles and throughput.",
        discussion: """
            Cycles over the URLs (arguments, or -i FILE, one per line; a line starting with { is a JSON \
            request, as fetch reads it) until -n requests were made or \
            -d time has passed (default -n 1000). Closed loop by default: -c requests in flight, a new one \
            as each completes. With --rate R, open loop: request k is due at k/R seconds, and its latency \
            counts from that due time, so queueing in front of a saturated server shows in the tail \
            (coordinated-omission correction, as wrk2 does). Bodies are counted, not kept; repeated URLs \
            are all sent (no de-duplication). Retried requests are counted as retries; use --retries 0 \
            for a pure measurement. The report goes to standard output (JSON with --json, which keeps \
            the whole histograms, the time series and the settings, for bench compare, merge and \
            report). --series FILE writes one JSON line per --interval; --hdr-log FILE HdrHistogram's \
            interval log. Exit status: 0 all responses 2xx, 1 some requests failed, 2 usage error, \
            130 interrupted (143 by SIGTERM, 129 by SIGHUP; after the report).
            """
    )

    @Argument(help: "URLs to request, in turn (instead of, or before, -i).")
    var urls: [String] = []

    @Option(name: .shortAndLong, help: "Read URLs from FILE, one per line ('-' = standard input).")
    var input: String?

    @Option(
        name: [.customShort("n"), .long], parsing: .unconditional,
        help: "Requests to make in all (default 1000 unless -d is given).")
    var requests: Int?

    @Option(
        name: [.customShort("d"), .long], help: "Run for this long instead: 10s, 500ms, 2m (a bare number is seconds).")
    var duration: String?

    @OptionGroup var engine: EngineOptions

    @OptionGroup var transport: TransportOptions

    @OptionGroup var request: BenchRequestOptions

    @Flag(help: "Print the report as one JSON object instead of text.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print one summary line instead of the full text report.")
    var quiet = false

    @Option(help: "Write the latency percentile distribution to FILE in HdrHistogram's .hgrm format (milliseconds).")
    var hdr: String?

    @Option(help: "Write the time series to FILE: one JSON line per interval (see 'batchfetch schema bench').")
    var series: String?

    @Option(help: "The series' interval: 1s, 250ms, 1m (default 1s).")
    var interval: String = "1s"

    @Option(
        name: .customLong("hdr-log"),
        help: "Write HdrHistogram's interval log to FILE (microseconds; tag 'service' for service time).")
    var hdrLog: String?

    @Option(help: "A name for the run in --json, bench compare and bench report.")
    var label: String?

    @Option(
        help: ArgumentHelp(
            "Open-loop ramps and plateaus one after another on one connection pool, instead of --rate, -n, -d.",
            valueName: "'30s:0-500/s,5m:500/s,30s:500-0/s'"))
    var stages: String?

    /// The parsed `--stages`.
    var loadStages: [LoadStage]? { self.stages.flatMap { try? LoadStage.parse($0) } }

    /// The series' interval, parsed.
    var intervalDuration: Duration { LoadPlan.parseDuration(self.interval) ?? .seconds(1) }

    /// Whether the run records a time series: for a file, or for the JSON report, which keeps it.
    var recordsSeries: Bool { self.series != nil || self.hdrLog != nil || self.json }

    func validate() throws {
        guard let interval = LoadPlan.parseDuration(self.interval), interval >= .milliseconds(10) else {
            throw ValidationError(
                "--interval must be a time of at least 10ms such as 1s or 500ms (got '\(self.interval)')")
        }
        if let stages = self.stages {
            do throws(FetchError) {
                _ = try LoadStage.parse(stages)
            } catch {
                throw ValidationError("--stages: \(error.message)")
            }
            if self.requests != nil || self.duration != nil || self.engine.rate != nil {
                throw ValidationError("--stages sets the pace and the length: give no --rate, -n or -d with it")
            }
        }
        if self.requests != nil && self.duration != nil {
            throw ValidationError("give either -n/--requests or -d/--duration, not both")
        }
        if let requests = self.requests, requests < 1 {
            throw ValidationError("-n/--requests must be at least 1")
        }
        if let duration = self.duration {
            guard let parsed = LoadPlan.parseDuration(duration), parsed > .zero else {
                throw ValidationError(
                    "-d/--duration must be a positive time such as 10s, 500ms or 2m (got '\(duration)')")
            }
        }
        if self.urls.isEmpty && self.input == nil {
            throw ValidationError("no URLs: give them as arguments or with -i FILE")
        }
    }

    /// When the run stops, from -n or -d.
    var stop: LoadPlan.Stop {
        if let stages = self.loadStages {
            return .duration(stages.reduce(.zero) { $0 + $1.duration })
        }
        if let duration = self.duration, let parsed = LoadPlan.parseDuration(duration) {
            return .duration(parsed)
        }
        return .count(self.requests ?? 1000)
    }

    func run() async throws {
        try self.places.check()
        let requests = try BenchInput.requests(
            arguments: self.urls, file: self.input, template: try self.request.template())
        let plan = LoadPlan(
            requests: requests, stop: self.stop,
            pacing: self.loadStages.map { .staged($0) } ?? self.engine.rate.map { .openLoop(requestsPerSecond: $0) }
                ?? .closedLoop)
        let hdrFile = try self.hdr.map { try FileHandleOutput.opening($0) }
        let seriesOutput = try BenchSeriesOutput(series: self.series, hdrLog: self.hdrLog, spill: self.json)
        let configuration = try self.configuration()
        let generator = LoadGenerator(configuration: configuration)
        let series = self.seriesRecorder(plan: plan, output: seriesOutput)
        let loadRun = await CommandRun { try await generator.run(plan, series: series) }
        let run = try Self.completed(loadRun)
        var report = run.report(plan: plan, concurrency: configuration.maxInFlight)
        report.settings = BenchReport.Settings(
            label: self.label, startTime: run.startTime, distinctRequests: requests.count,
            stop: self.stop, interval: self.intervalDuration,
            retries: self.engine.retries)
        report.settings?.stages = self.stages
        let outputsWritten = self.write(report, seriesOutput: seriesOutput)
        if let hdrFile {
            hdrFile.write(run.recorder.latency.percentileDistribution())
            hdrFile.flush()
        }
        var ending = RunEnding()
        ending.interrupted = loadRun.interrupted ? "interrupted; the report covers the requests completed" : nil
        ending.signal = loadRun.signal
        ending.usage = outputsWritten ? nil : ""  // each failed output said why when it failed
        ending.someFailed = report.failed > 0
        try ending.finish()
    }

    /// What the run reads and writes, checked before the first request.
    private var places: FilePlaces {
        var places = FilePlaces()
        if let input = self.input {
            places.inputs.append(.init(flag: "-i", path: input))
        }
        if let hdr = self.hdr {
            places.outputs.append(.init(flag: "--hdr", path: hdr))
        }
        if let series = self.series {
            places.outputs.append(.init(flag: "--series", path: series))
        }
        if let hdrLog = self.hdrLog {
            places.outputs.append(.init(flag: "--hdr-log", path: hdrLog))
        }
        return places
    }

    private func configuration() throws -> Engine.Configuration {
        var configuration = self.engine.configuration()
        configuration.headers = try self.request.fields()
        // A load generator should send only what it is asked to, and Accept-Encoding costs libcurl
        // 7.88 thousands of instructions a request to format.
        self.transport.apply(to: &configuration, compressedByDefault: false)
        // A load test reports sizes, never bodies: count them as they arrive instead of keeping them.
        configuration.keepsBodies = false
        // It measures the server it is pointed at: every request goes, also to a server that refuses.
        configuration.skipsDownHosts = false
        self.transport.warnAboutWeakenedTransport()
        return configuration
    }

    /// The recorder of `--series`, `--hdr-log` and the report's series, when any is asked for.
    private func seriesRecorder(plan: LoadPlan, output: BenchSeriesOutput) -> SeriesRecorder? {
        guard self.recordsSeries else {
            return nil
        }
        let series = SeriesRecorder(
            interval: self.intervalDuration, keepsPoints: false, intendedBy: { plan.intendedCount(by: $0) },
            onPoint: { output.write($0) })
        output.begin(startTime: series.startTime)
        return series
    }

    /// The run, or a usage error when it could not start.
    private static func completed(_ loadRun: CommandRun<LoadGenerator.Run>) throws -> LoadGenerator.Run {
        switch loadRun.outcome {
        case .success(let value):
            return value
        case .failure(let error):
            let message = (error as? FetchError)?.message ?? "\(error)"
            FileHandleOutput.standardError.write("batchfetch: \(message)\n")
            throw ExitCode.usage
        }
    }

    /// Ends the series outputs and writes the report (JSON, one line, or text) to standard output.
    /// - Returns: whether every output was written in full.
    private func write(_ report: BenchReport, seriesOutput: BenchSeriesOutput) -> Bool {
        var written = seriesOutput.finish()
        if let spill = seriesOutput.spill {
            if !BenchReportFile.write(report, series: spill, to: FileHandleOutput.standardOutput) {
                let reason = spill.failure.map { String(cString: strerror($0)) } ?? "it could not be read back"
                FileHandleOutput.standardError.write(
                    "batchfetch: the report's series is incomplete: its temporary file failed (\(reason))\n")
                written = false
            }
        } else if self.json {
            FileHandleOutput.standardOutput.write(BenchReportFile.encoded(report))
        } else if self.quiet {
            FileHandleOutput.standardOutput.write(report.summaryLine + "\n")
        } else {
            FileHandleOutput.standardOutput.write(report.text)
        }
        return written
    }
}
