import BatchFetch

/// When each request of an open-loop run is due: request *k* (from 0) at `k / rate` seconds after
/// the start, until the count is reached or the due time reaches the duration.
///
/// Pure arithmetic, tested without a clock. Offsets are computed from *k* each time rather than
/// summed, so rounding never accumulates into drift over a long run.
struct OpenLoopSchedule: Sendable, Hashable {
    let requestsPerSecond: Double
    let stop: LoadPlan.Stop

    /// The offset from the start at which request `k` is due, or `nil` when the run ends before it.
    func offset(of k: Int) -> Duration? {
        let nanoseconds = Double(k) * 1e9 / self.requestsPerSecond
        guard nanoseconds.isFinite, nanoseconds < 9e18 else {
            return nil
        }
        let offset = Duration.nanoseconds(Int64(nanoseconds.rounded(.up)))
        switch self.stop {
        case .count(let count):
            return k < count ? offset : nil
        case .duration(let duration):
            return offset < duration ? offset : nil
        }
    }

    /// How many requests are due by `elapsed` since the start (those whose offset is at most it).
    func dueCount(by elapsed: Duration) -> Int {
        let seconds = BenchRecorder.seconds(elapsed)
        guard seconds >= 0 else {
            return 0
        }
        var count = Int(Swift.min(seconds * self.requestsPerSecond, 9e15)) + 1
        switch self.stop {
        case .count(let limit):
            count = Swift.min(count, limit)
        case .duration(let duration):
            count = Swift.min(count, Int(BenchRecorder.seconds(duration) * self.requestsPerSecond) + 2)
        }
        // The estimate is off by rounding at most: step back to the last request really due.
        while count > 0, (self.offset(of: count - 1).map { $0 > elapsed } ?? true) {
            count -= 1
        }
        return count
    }
}
