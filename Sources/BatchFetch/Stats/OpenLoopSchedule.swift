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

}
