import BatchFetch

/// One stage of an open-loop ramp: for `duration`, the rate goes linearly from `from` to `to`
/// requests per second (equal for a plateau, both zero for a pause). Stages run one after another
/// on one engine, so connections are reused from stage to stage.
public struct LoadStage: Sendable, Hashable {
    public var duration: Duration
    public var from: Double
    public var to: Double

    /// Creates a stage.
    public init(duration: Duration, from: Double, to: Double) {
        self.duration = duration
        self.from = from
        self.to = to
    }

    /// Parses `30s:0-500/s,5m:500/s,30s:500-0/s`: stages separated by commas, each `DURATION:RATE`
    /// or `DURATION:FROM-TO`, rates in requests per second with an optional `/s`.
    /// - Throws: a message naming the stage that cannot be read.
    public static func parse(_ text: String) throws(FetchError) -> [LoadStage] {
        var stages: [LoadStage] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let problem = FetchError(
                kind: .invalidConfiguration,
                message: "'\(part)' is not a stage: give DURATION:RATE or DURATION:FROM-TO, e.g. 30s:0-500/s,5m:500/s")
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2, let duration = LoadPlan.parseDuration(String(fields[0])), duration > .zero else {
                throw problem
            }
            var rates = Substring(fields[1])
            if rates.hasSuffix("/s") {
                rates = rates.dropLast(2)
            }
            let bounds = rates.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
            guard (1...2).contains(bounds.count), let from = bounds.first ?? nil, let to = bounds.last ?? nil,
                from >= 0, to >= 0, from.isFinite, to.isFinite
            else {
                throw problem
            }
            stages.append(LoadStage(duration: duration, from: from, to: to))
        }
        guard stages.contains(where: { $0.from > 0 || $0.to > 0 }) else {
            throw FetchError(kind: .invalidConfiguration, message: "the stages send no request: give a rate above 0")
        }
        return stages
    }

    /// How many requests the stage sends: the area under its rate.
    var requestCount: Double { (self.from + self.to) / 2 * BenchRecorder.seconds(self.duration) }
}

/// When each request of a staged run is due: request *k* (from 0) when the requests sent so far,
/// the integral of the piecewise-linear rate, reach *k*. Pure arithmetic, tested without a clock.
struct StagedSchedule: DueSchedule {
    let stages: [LoadStage]
    /// The stages' start offsets in seconds and the requests due before each.
    private let starts: [Double]
    private let before: [Double]
    let total: Double

    init(stages: [LoadStage]) {
        self.stages = stages
        var starts: [Double] = []
        var before: [Double] = []
        var time = 0.0
        var count = 0.0
        for stage in stages {
            starts.append(time)
            before.append(count)
            time += BenchRecorder.seconds(stage.duration)
            count += stage.requestCount
        }
        self.starts = starts
        self.before = before
        self.total = count
    }

    /// The whole run's length.
    var duration: Duration { self.stages.reduce(.zero) { $0 + $1.duration } }

    func offset(of k: Int) -> Duration? {
        let target = Double(k)
        guard target < self.total.rounded(.down) || (target == 0 && self.total > 0) else {
            return nil
        }
        guard let index = self.before.lastIndex(where: { $0 <= target }) else {
            return nil
        }
        // The stage where the count reaches k; empty (paused) stages are stepped over.
        var stage = index
        while stage < self.stages.count - 1 && self.stages[stage].requestCount <= target - self.before[stage] {
            stage += 1
        }
        let m = target - self.before[stage]
        let length = BenchRecorder.seconds(self.stages[stage].duration)
        let (a, b) = (self.stages[stage].from, self.stages[stage].to)
        let slope = (b - a) / length
        let tau: Double
        if abs(slope) < 1e-12 {
            guard a > 0 else {
                return nil
            }
            tau = m / a
        } else {
            // a·τ + slope·τ²/2 = m, the root in the stage.
            tau = (-a + (a * a + 2 * slope * m).squareRoot()) / slope
        }
        let seconds = self.starts[stage] + Swift.min(Swift.max(tau, 0), length)
        return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
    }

    func dueCount(by elapsed: Duration) -> Int {
        var count = 0
        // The count rises by at most the highest rate per second: start near the integral.
        let seconds = BenchRecorder.seconds(elapsed)
        for (index, stage) in self.stages.enumerated() {
            let length = BenchRecorder.seconds(stage.duration)
            let tau = Swift.min(Swift.max(seconds - self.starts[index], 0), length)
            if tau > 0 {
                let slope = (stage.to - stage.from) / length
                count = Int(self.before[index] + stage.from * tau + slope * tau * tau / 2)
            }
        }
        count = Swift.max(0, Swift.min(count + 2, Int(self.total.rounded(.down))))
        while count > 0, (self.offset(of: count - 1).map { $0 > elapsed } ?? true) {
            count -= 1
        }
        return count
    }
}

/// A schedule of due times for an open loop.
protocol DueSchedule: Sendable {
    /// The offset from the start at which request `k` is due, or `nil` when the run ends before it.
    func offset(of k: Int) -> Duration?
    /// How many requests are due by `elapsed`.
    func dueCount(by elapsed: Duration) -> Int
}

extension OpenLoopSchedule: DueSchedule {}
