import BatchFetch
import Foundation
import Synchronization

/// Cuts a load run into intervals and measures each on its own: the time series of
/// `bench --series`.
///
/// The run's tasks call ``noteSent(_:)`` and ``record(_:latency:)``; a ticker task (see
/// ``LoadGenerator``) calls ``cut(at:)`` at each interval's end, which swaps the interval's
/// counters and histograms for a spare set under the lock and summarises them outside it, so the
/// recording side waits for a swap at most. The two sets are reset and reused, never grown:
/// memory stays flat however long the run; only the points themselves (a few KB an interval,
/// mostly their histograms) are kept, and only when ``keepsPoints`` (for the run's JSON).
///
/// Threading: any task may record; ``cut(at:)`` is called by one task at a time.
public final class SeriesRecorder: Sendable {
    struct Interval {
        var done = 0
        var ok = 0
        var bytes = 0
        var statuses: [Int: Int] = [:]
        var errors: [FetchError.Kind: Int] = [:]
        var latency = LatencyHistogram()
        var service = LatencyHistogram()

        mutating func reset() {
            self.done = 0
            self.ok = 0
            self.bytes = 0
            self.statuses.removeAll(keepingCapacity: true)
            self.errors.removeAll(keepingCapacity: true)
            self.latency.reset()
            self.service.reset()
        }
    }

    /// What only the cutting task touches: the spare set and the running totals.
    struct Cutter {
        var spare = Interval()
        var lastCut: ContinuousClock.Instant
        var sent = 0
        var intended = 0
        var done = 0
        var points: [SeriesPoint] = []
    }

    /// The interval's length.
    public let interval: Duration
    /// Statuses that count as ok.
    public let okStatuses: ClosedRange<Int>
    /// The run's start, on the monotonic clock and as wall-clock time (seconds since the epoch).
    public let start: ContinuousClock.Instant
    public let startTime: Double
    /// Whether ``points`` keeps every point (for a report that carries the series); without it
    /// points only go to `onPoint`, and memory does not grow with the run's length at all.
    public let keepsPoints: Bool
    private let intendedBy: @Sendable (Duration) -> Int?
    private let onPoint: @Sendable (SeriesPoint) -> Void
    private let current = Mutex(Interval())
    private let sentCount = Atomic<Int>(0)
    private let cutter: Mutex<Cutter>

    /// A recorder for a run starting now.
    ///
    /// - Parameters:
    ///   - intendedBy: how many requests are due by a time since the start (open loop); `nil`
    ///     returns count the requests sent instead.
    ///   - onPoint: called with each point as it is cut, on the cutting task (write it out there).
    public init(
        interval: Duration, okStatuses: ClosedRange<Int> = 200...299, keepsPoints: Bool = true,
        intendedBy: @escaping @Sendable (Duration) -> Int? = { _ in nil },
        onPoint: @escaping @Sendable (SeriesPoint) -> Void = { _ in }
    ) {
        self.interval = interval
        self.okStatuses = okStatuses
        self.keepsPoints = keepsPoints
        self.start = ContinuousClock.now
        self.startTime = Date().timeIntervalSince1970
        self.intendedBy = intendedBy
        self.onPoint = onPoint
        self.cutter = Mutex(Cutter(lastCut: self.start))
    }

    /// Counts requests handed to the engine.
    public func noteSent(_ count: Int = 1) {
        self.sentCount.wrappingAdd(count, ordering: .relaxed)
    }

    /// Records one result in the current interval; `latency` is from its intended start (`nil`:
    /// the service time, as in a closed loop).
    public func record(_ result: FetchResult, latency: Duration? = nil) {
        self.current.withLock { interval in
            interval.done += 1
            switch result.outcome {
            case .failure(let error):
                interval.errors[error.kind, default: 0] += 1
            case .success(let response):
                if self.okStatuses.contains(response.status) {
                    interval.ok += 1
                }
                interval.statuses[response.status, default: 0] += 1
                interval.bytes += response.bodyByteCount
                interval.latency.record(latency ?? response.timings.total)
                interval.service.record(response.timings.total)
            }
        }
    }

    /// Ends the current interval at `instant`, hands its point to `onPoint` and keeps it.
    ///
    /// - Parameter final: the run's last cut. The ticker may have cut a boundary just after the
    ///   run's end (it is stopped after the end is measured): the last cut is then moved to that
    ///   boundary, and left out when nothing happened since, so intervals never overlap or go back.
    public func cut(at instant: ContinuousClock.Instant, final: Bool = false) {
        if final {
            // A ticker starved by a busy machine may have missed boundaries before the end: each
            // still gets its point (its intended count exact; what was measured goes to the first).
            while true {
                let next = self.cutter.withLock { $0.lastCut } + self.interval
                guard next < instant else {
                    break
                }
                self.cut(at: next)
            }
        }
        self.cutter.withLock { cutter in
            let instant = Swift.max(instant, cutter.lastCut)
            self.current.withLock { swap(&$0, &cutter.spare) }
            // Loaded after the swap, so every result in the interval has its request counted.
            let sent = self.sentCount.load(ordering: .relaxed)
            if final && instant == cutter.lastCut && cutter.spare.done == 0 && sent == cutter.sent {
                return
            }
            let intended = self.intendedBy(instant - self.start) ?? sent
            let counts = cutter.spare
            let offset = BenchRecorder.seconds(instant - self.start)
            var point = SeriesPoint(
                offsetSeconds: BenchRecorder.rounded(offset, 6),
                intervalSeconds: BenchRecorder.rounded(BenchRecorder.seconds(instant - cutter.lastCut), 6),
                time: BenchRecorder.rounded(self.startTime + offset, 6), latency: counts.latency,
                service: counts.service)
            point.intended = Swift.max(0, intended - cutter.intended)
            point.sent = sent - cutter.sent
            point.done = counts.done
            cutter.done += counts.done
            point.inFlight = Swift.max(0, sent - cutter.done)
            point.ok = counts.ok
            point.bytes = counts.bytes
            point.statuses = Dictionary(uniqueKeysWithValues: counts.statuses.map { (String($0.key), $0.value) })
            point.errors = Dictionary(uniqueKeysWithValues: counts.errors.map { ($0.key.rawValue, $0.value) })
            point.computeRates()
            cutter.sent = sent
            cutter.intended = Swift.max(intended, cutter.intended)
            cutter.lastCut = instant
            cutter.spare.reset()
            if self.keepsPoints {
                cutter.points.append(point)
            }
            self.onPoint(point)
        }
    }

    /// Cuts at every interval boundary until the calling task is cancelled.
    public func tick() async {
        var boundary = self.start + self.interval
        while !Task.isCancelled {
            do {
                // Zero tolerance: the default lets the timer fire up to a millisecond late.
                try await Task.sleep(until: boundary, tolerance: .zero, clock: .continuous)
            } catch {
                return
            }
            self.cut(at: boundary)
            boundary += self.interval
        }
    }

    /// The points cut so far.
    public var points: [SeriesPoint] {
        self.cutter.withLock { $0.points }
    }
}
