import BatchFetch
import Foundation
import Synchronization

/// Sends a ``LoadPlan`` through an ``Engine`` of its own and measures what comes back: the
/// library side of `batchfetch bench`.
///
/// The engine is configured from the given configuration with de-duplication and the replay
/// cache off (a load run repeats URLs on purpose, and each repetition must reach the server), and
/// in an open loop without the engine's rate limit (the generator keeps the schedule itself).
///
/// **Closed loop** hands the engine one lazily generated sequence; the engine pulls from it only as
/// results are consumed, so the in-flight cap stays full and nothing piles up. Latency is the
/// final attempt's libcurl total time, as wrk measures it.
///
/// **Open loop** needs requests to *enter* the engine at their due times, which a lazily pulled
/// sequence cannot do (the engine pulls when it has room, i.e. late exactly when the server is
/// slow: coordinated omission). A pacing loop therefore sleeps until the next due time, then
/// submits every request due by then as one batch (`engine.results(for:)`), consumed by its own
/// child task. The engine's cap still applies, so when the server falls behind, requests wait
/// in the engine's queue, and that wait is in ``Timings/queued``. A response's latency is
///
///     (submitted − due) + queued + total
///
/// — the pacing loop's own lateness, the wait for a transfer slot, and the transfer — all of it
/// measured from the due time, never from when a slot happened to free up. The engine's rate
/// limiter is not used for pacing: it delays starts but keeps no schedule (a backlog drains at
/// the rate rather than catching up), and its delay would count in `queued` from a submission
/// time that is not the due time.
///
/// For a retried request the latency covers the wait before its first attempt and its final
/// attempt (earlier attempts and backoff are not in libcurl's timings); retries are counted in
/// ``BenchRecorder/retries``, and `retries: 0` gives pure figures.
///
/// Threading: `run` may be called from any task; cancelling that task stops issuing, cancels what
/// is outstanding and returns what was measured so far.
public struct LoadGenerator: Sendable {
    /// The engine configuration, as adjusted for load runs.
    public let configuration: Engine.Configuration

    /// The pacing loop's shortest sleep: at high rates, requests due within one tick go out
    /// together, each an average of half a tick late (which its latency includes).
    static let minimumTick: Duration = .microseconds(250)

    /// A generator whose engines use `configuration` (de-duplication and the replay cache off).
    public init(configuration: Engine.Configuration = Engine.Configuration()) {
        var configuration = configuration
        configuration.deduplicate = false
        configuration.replayCacheBytes = 0
        self.configuration = configuration
    }

    /// What a run measured.
    public struct Run: Sendable {
        /// Everything recorded.
        public var recorder: BenchRecorder
        /// From the first request to the last result.
        public var elapsed: Duration
        /// The run's time series, when it was recorded with a ``SeriesRecorder``.
        public var series: [SeriesPoint] = []
        /// When the run started, in seconds since the Unix epoch.
        public var startTime: Double = Date().timeIntervalSince1970
        /// The report of the run.
        public func report(plan: LoadPlan, concurrency: Int) -> BenchReport {
            self.recorder.report(elapsed: self.elapsed, pacing: plan.pacing, concurrency: concurrency)
        }
    }

    /// Runs `plan` to its end (or until the calling task is cancelled).
    ///
    /// - Parameters:
    ///   - recorder: where to record (its ``BenchRecorder/okStatuses`` decide what is ok).
    ///   - series: where to record the time series, if anywhere; the run starts at its
    ///     ``SeriesRecorder/start``, its intervals are cut as they end, and the last one, shorter,
    ///     when the last result is in.
    /// - Throws: ``FetchError`` with kind ``FetchError/Kind/invalidConfiguration`` when the plan or
    ///   the configuration cannot run.
    public func run(
        _ plan: LoadPlan, recorder: BenchRecorder = BenchRecorder(), series: SeriesRecorder? = nil
    ) async throws(FetchError) -> Run {
        if let problem = plan.problem {
            throw FetchError(kind: .invalidConfiguration, message: problem)
        }
        var configuration = self.configuration
        if plan.pacing != .closedLoop {
            configuration.rateLimit = nil
        }
        let engine = try Engine(configuration: configuration)
        let ticker = series.map { series in Task { await series.tick() } }
        var run: Run
        switch plan.pacing {
        case .closedLoop:
            run = await Self.closedLoop(engine, plan, recorder, series)
        case .openLoop(let rate):
            let schedule = OpenLoopSchedule(requestsPerSecond: rate, stop: plan.stop)
            run = await Self.openLoop(engine, plan.requests, schedule, recorder, series)
        case .staged(let stages):
            run = await Self.openLoop(engine, plan.requests, StagedSchedule(stages: stages), recorder, series)
        }
        if let series, let ticker {
            ticker.cancel()
            await ticker.value
            series.cut(at: series.start + run.elapsed, final: true)
            run.series = series.points
            run.startTime = series.startTime
        }
        await engine.shutdown()
        return run
    }

    private static func closedLoop(
        _ engine: Engine, _ plan: LoadPlan, _ recorder: BenchRecorder, _ series: SeriesRecorder?
    ) async -> Run {
        var recorder = recorder
        let start = series?.start ?? ContinuousClock.now
        let cycle = RequestCycle(plan.requests, stop: plan.stop, start: start, series: series)
        if let series {
            for await result in engine.results(for: cycle) {
                recorder.record(result)
                series.record(result)
            }
        } else {
            for await result in engine.results(for: cycle) {
                recorder.record(result)
            }
        }
        return Run(recorder: recorder, elapsed: ContinuousClock.now - start)
    }

    private static func openLoop(
        _ engine: Engine, _ requests: [Request], _ schedule: some DueSchedule, _ recorder: BenchRecorder,
        _ series: SeriesRecorder?
    ) async -> Run {
        let shared = SharedRecorder(recorder)
        // A batch no larger than the read-ahead is submitted whole on its first `next()`, so every
        // request in it shares one submission instant.
        let chunk = engine.configuration.effectiveReadAhead
        let start = series?.start ?? ContinuousClock.now
        await withDiscardingTaskGroup { group in
            var issued = 0
            var batch: [Request] = []
            var due: [ContinuousClock.Instant] = []
            batch.reserveCapacity(chunk)
            due.reserveCapacity(chunk)
            while !Task.isCancelled {
                let now = ContinuousClock.now
                while let offset = schedule.offset(of: issued), start + offset <= now {
                    batch.append(requests[issued % requests.count])
                    due.append(start + offset)
                    issued += 1
                    if batch.count == chunk {
                        Self.submit(
                            Self.takeAll(&batch), due: Self.takeAll(&due), to: engine, in: &group, recording: shared,
                            series: series)
                    }
                }
                if !batch.isEmpty {
                    Self.submit(
                        Self.takeAll(&batch), due: Self.takeAll(&due), to: engine, in: &group, recording: shared,
                        series: series)
                }
                guard let next = schedule.offset(of: issued) else {
                    break
                }
                let wake = Swift.max(start + next, ContinuousClock.now + Self.minimumTick)
                // Zero tolerance: the default lets the timer fire up to a millisecond late.
                try? await Task.sleep(until: wake, tolerance: .zero, clock: .continuous)
            }
        }
        let elapsed = ContinuousClock.now - start
        return Run(recorder: shared.state.withLock { $0 }, elapsed: elapsed)
    }

    /// The elements of `buffer` in an array of their own, exactly as large, leaving `buffer` empty
    /// with its capacity for the next batch. Handing `buffer` itself to the batch's task would
    /// share its storage, and emptying it would then allocate the whole read-ahead again: a
    /// fresh 256-slot array for every batch of one or two requests at 2,000 req/s, each held
    /// until its batch is answered, so a backlog cost hundreds of times its requests' size.
    static func takeAll<Element>(_ buffer: inout [Element]) -> [Element] {
        var taken: [Element] = []
        taken.reserveCapacity(buffer.count)
        taken.append(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
        return taken
    }

    private static func submit(
        _ batch: [Request], due: [ContinuousClock.Instant], to engine: Engine,
        in group: inout DiscardingTaskGroup, recording shared: SharedRecorder, series: SeriesRecorder?
    ) {
        series?.noteSent(batch.count)
        group.addTask {
            let submitted = ContinuousClock.now
            for await result in engine.results(for: batch) {
                guard let response = result.response else {
                    shared.state.withLock { $0.record(result) }
                    series?.record(result)
                    continue
                }
                let latency = (submitted - due[result.index]) + response.timings.queued + response.timings.total
                shared.state.withLock { $0.record(result, latency: latency) }
                series?.record(result, latency: latency)
            }
        }
    }
}

/// The recorder the open loop's batch tasks share.
private final class SharedRecorder: Sendable {
    let state: Mutex<BenchRecorder>

    init(_ recorder: BenchRecorder) {
        self.state = Mutex(recorder)
    }
}
