import ArgumentParser
import BatchFetch
import Foundation

/// `batchfetch bench`: send URLs over and over and report latency and throughput.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure an HTTP server: send URLs over and over, report latency percentiles and throughput.",
        discussion: """
            Cycles over the URLs (arguments, or -i FILE, one per line; a line starting with { is a JSON \
            request, as fetch reads it) until -n requests were made or \
            -d time has passed (default -n 1000). Closed loop by default: -c requests in flight, a new one \
            as each completes. With --rate R, open loop: request k is due at k/R seconds, and its latency \
            counts from that due time, so queueing in front of a saturated server shows in the tail \
            (coordinated-omission correction, as wrk2 does). Bodies are counted, not kept; repeated URLs \
            are all sent (no de-duplication). Retried requests are counted as retries; use --retries 0 \
            for a pure measurement. The report goes to standard output (JSON with --json). Exit status: \
            0 all responses 2xx, 1 some requests failed, 2 usage error, 130 interrupted (after the report).
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

    func validate() throws {
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
        if let duration = self.duration, let parsed = LoadPlan.parseDuration(duration) {
            return .duration(parsed)
        }
        return .count(self.requests ?? 1000)
    }

    func run() async throws {
        var places = FilePlaces()
        if let input = self.input {
            places.inputs.append(.init(flag: "-i", path: input))
        }
        if let hdr = self.hdr {
            places.outputs.append(.init(flag: "--hdr", path: hdr))
        }
        try places.check()
        let requests = try BenchInput.requests(
            arguments: self.urls, file: self.input, template: try self.request.template())
        let plan = LoadPlan(
            requests: requests, stop: self.stop,
            pacing: self.engine.rate.map { .openLoop(requestsPerSecond: $0) } ?? .closedLoop)
        let hdrFile = try self.hdr.map { try FileHandleOutput.opening($0) }
        var configuration = self.engine.configuration()
        configuration.headers = try self.request.fields()
        // A load generator should send only what it is asked to, and Accept-Encoding costs libcurl
        // 7.88 ~4,000 instructions a request to format (W1, callgrind).
        self.transport.apply(to: &configuration, compressedByDefault: false)
        // A load test reports sizes, never bodies: count them as they arrive instead of keeping them.
        configuration.keepsBodies = false
        self.transport.warnAboutWeakenedTransport()
        let generator = LoadGenerator(configuration: configuration)
        let loadRun = await CommandRun { try await generator.run(plan) }
        let run: LoadGenerator.Run
        switch loadRun.outcome {
        case .success(let value):
            run = value
        case .failure(let error):
            let message = (error as? FetchError)?.message ?? "\(error)"
            FileHandleOutput.standardError.write("batchfetch: \(message)\n")
            throw ExitCode.usage
        }

        let report = run.report(plan: plan, concurrency: configuration.maxInFlight)
        if self.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
            FileHandleOutput.standardOutput.write(Array(data) + [0x0A])
        } else if self.quiet {
            FileHandleOutput.standardOutput.write(report.summaryLine + "\n")
        } else {
            FileHandleOutput.standardOutput.write(report.text)
        }
        if let hdrFile {
            hdrFile.write(run.recorder.latency.percentileDistribution())
            hdrFile.flush()
        }
        if loadRun.interrupted {
            FileHandleOutput.standardError.write("batchfetch: interrupted; the report covers the requests completed\n")
            throw ExitCode.interrupted
        }
        if report.failed > 0 {
            throw ExitCode.someFailed
        }
    }
}
