import BatchFetch

/// The requests of a closed-loop run: the plan's requests over and over, in order, until the
/// count is reached or the deadline has passed (checked each time the engine pulls one), so the
/// sequence always ends by itself.
struct RequestCycle: Sequence, IteratorProtocol {
    private let requests: [Request]
    private let limit: Int?
    private let deadline: ContinuousClock.Instant?
    private let series: SeriesRecorder?
    private var issued = 0

    init(_ requests: [Request], stop: LoadPlan.Stop, start: ContinuousClock.Instant, series: SeriesRecorder? = nil) {
        self.requests = requests
        self.series = series
        switch stop {
        case .count(let count):
            self.limit = count
            self.deadline = nil
        case .duration(let duration):
            self.limit = nil
            self.deadline = start + duration
        }
    }

    mutating func next() -> Request? {
        guard !self.requests.isEmpty else {
            return nil
        }
        if let limit = self.limit, self.issued >= limit {
            return nil
        }
        if let deadline = self.deadline, ContinuousClock.now >= deadline {
            return nil
        }
        defer { self.issued += 1 }
        self.series?.noteSent()
        return self.requests[self.issued % self.requests.count]
    }
}
