import BatchFetch

/// What a ``LoadGenerator`` sends: which requests, cycled over in order, how many or for how
/// long, and at what pace.
public struct LoadPlan: Sendable {
    /// When a run stops issuing requests.
    public enum Stop: Sendable, Hashable {
        /// After exactly this many requests.
        case count(Int)
        /// Once this much time has passed since the start; requests already issued still complete
        /// and are counted.
        case duration(Duration)
    }

    /// How requests are paced.
    public enum Pacing: Sendable, Hashable {
        /// As fast as the server answers: the engine's in-flight cap is kept full, and a new request
        /// starts when one completes. Latency is each request's own transfer time; queueing inside
        /// the server shows up only as lower throughput (the classic closed-loop blind spot).
        case closedLoop
        /// At a constant rate, whatever the server's speed: request *k* is due at `start + k / rate`
        /// and its latency counts from that due time, so time spent waiting for a transfer slot
        /// when the server falls behind is part of the latency (coordinated-omission correction,
        /// as wrk2 does).
        case openLoop(requestsPerSecond: Double)
        /// An open loop whose rate follows ``LoadStage``s (ramps and plateaus), one after another,
        /// on one engine; the plan's stop is the stages' total duration.
        case staged([LoadStage])
    }

    /// The requests to cycle over; at least one.
    public var requests: [Request]
    /// When to stop issuing.
    public var stop: Stop
    /// How to pace.
    public var pacing: Pacing

    /// Creates a plan.
    public init(requests: [Request], stop: Stop = .count(1000), pacing: Pacing = .closedLoop) {
        self.requests = requests
        self.stop = stop
        self.pacing = pacing
    }

    /// Parses a duration as given on a command line: a non-negative number with an optional unit,
    /// `ms`, `s` (the default), `m` or `h` — `500ms`, `10`, `1.5s`, `2m`. `nil` when malformed.
    public static func parseDuration(_ text: String) -> Duration? {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for unit in units where number.hasSuffix(unit.suffix) {
            number = number.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number), value >= 0, value.isFinite,
            number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") })
        else {
            return nil
        }
        let nanoseconds = value * scale * 1e9
        guard nanoseconds < 9e18 else {
            return nil
        }
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }

    /// How many requests are due by `elapsed` since the start in an open loop; `nil` in a closed
    /// loop, where nothing is due before it is sent.
    public func intendedCount(by elapsed: Duration) -> Int? {
        switch self.pacing {
        case .closedLoop:
            return nil
        case .openLoop(let rate):
            return OpenLoopSchedule(requestsPerSecond: rate, stop: self.stop).dueCount(by: elapsed)
        case .staged(let stages):
            return StagedSchedule(stages: stages).dueCount(by: elapsed)
        }
    }

    /// Why the plan cannot run, or `nil` when it can.
    public var problem: String? {
        if self.requests.isEmpty {
            return "no requests to send"
        }
        switch self.stop {
        case .count(let count) where count < 1:
            return "the request count must be at least 1"
        case .duration(let duration) where duration <= .zero:
            return "the duration must be positive"
        default:
            break
        }
        if case .openLoop(let rate) = self.pacing, !(rate > 0 && rate.isFinite) {
            return "the rate must be a positive number of requests per second"
        }
        if case .staged(let stages) = self.pacing, StagedSchedule(stages: stages).total < 1 {
            return "the stages must send at least one request"
        }
        return nil
    }
}
