import BatchFetch
import Foundation

/// Two saved `bench --json` reports side by side: each figure's change, and the thresholds
/// (`p99>+5%,rps<-3%`) a CI job gates on. Pure values, no files.
public struct BenchComparison: Sendable {
    /// A figure both reports have.
    public struct Metric: Sendable, Hashable {
        /// Its name in tables and thresholds: `rps`, `p99`, …
        public var name: String
        /// Its unit, for the table.
        public var unit: String
        let value: @Sendable (BenchReport) -> Double?

        public static func == (lhs: Metric, rhs: Metric) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(self.name) }
    }

    /// Every figure compared, in table order.
    public static let metrics: [Metric] = [
        Metric(name: "rps", unit: "req/s", value: { $0.requestsPerSecond }),
        Metric(name: "mbps", unit: "MB/s", value: { $0.megabytesPerSecond }),
        Metric(name: "p50", unit: "ms", value: { $0.latency?.p50 }),
        Metric(name: "p90", unit: "ms", value: { $0.latency?.p90 }),
        Metric(name: "p99", unit: "ms", value: { $0.latency?.p99 }),
        Metric(name: "p99.9", unit: "ms", value: { $0.latency?.p99_9 }),
        Metric(name: "max", unit: "ms", value: { $0.latency?.max }),
        Metric(name: "mean", unit: "ms", value: { $0.latency?.mean }),
        Metric(name: "requests", unit: "", value: { Double($0.requests) }),
        Metric(name: "failed", unit: "", value: { Double($0.failed) }),
        Metric(
            name: "errors%", unit: "%", value: { $0.requests > 0 ? Double($0.failed) * 100 / Double($0.requests) : 0 }),
    ]

    /// One row: a figure in both runs and its relative change in percent (`nil` when the base
    /// is zero and the new one not, or a figure is missing).
    public struct Row: Sendable, Hashable {
        public var metric: Metric
        public var base: Double?
        public var new: Double?
        public var changePercent: Double? {
            guard let base = self.base, let new = self.new else {
                return nil
            }
            if base == 0 {
                return new == 0 ? 0 : nil
            }
            return (new - base) / abs(base) * 100
        }
    }

    /// A limit a comparison must stay within: `p99>+5%` (p99 rose by more than 5 %), `rps<-3%`,
    /// or an absolute one on the new run, `failed>0`, `p99>250`.
    public struct Threshold: Sendable, Hashable {
        public var metric: Metric
        /// `true` for `>`: crossed when above the limit; `false` for `<`.
        public var above: Bool
        public var limit: Double
        /// Whether ``limit`` is a relative change in percent (it ended with `%`).
        public var relative: Bool
        /// The threshold as written.
        public var text: String

        /// Whether `row` crosses it; a relative threshold on a change that cannot be computed
        /// (zero base, figure missing) counts as crossed when the new value exists and the base
        /// does not allow a ratio, since a CI gate must not pass on missing data.
        public func isCrossed(by row: Row) -> Bool {
            let value: Double?
            if self.relative {
                if let change = row.changePercent {
                    value = change
                } else if let new = row.new, row.base == 0 {
                    value = new > 0 ? .infinity : -.infinity
                } else {
                    return true
                }
            } else {
                value = row.new
            }
            guard let value else {
                return true
            }
            return self.above ? value > self.limit : value < self.limit
        }
    }

    /// Parses `p99>+5%,rps<-3%,failed>0`.
    /// - Throws: a message naming the part that is not a threshold and the metrics there are.
    public static func thresholds(_ text: String) throws(FetchError) -> [Threshold] {
        var thresholds: [Threshold] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let spec = part.trimmingCharacters(in: .whitespaces)
            guard let operatorIndex = spec.firstIndex(where: { $0 == ">" || $0 == "<" }) else {
                throw Self.thresholdError(spec)
            }
            let name = String(spec[..<operatorIndex]).trimmingCharacters(in: .whitespaces)
            var limit = spec[spec.index(after: operatorIndex)...].trimmingCharacters(in: .whitespaces)
            let relative = limit.hasSuffix("%")
            if relative {
                limit.removeLast()
            }
            let metric = Self.metrics.first { $0.name == name || $0.name == name.replacing("_", with: ".") }
            guard let metric, let number = Double(limit), number.isFinite
            else {
                throw Self.thresholdError(spec)
            }
            let above = spec[operatorIndex] == ">"
            thresholds.append(Threshold(metric: metric, above: above, limit: number, relative: relative, text: spec))
        }
        return thresholds
    }

    private static func thresholdError(_ spec: String) -> FetchError {
        FetchError(
            kind: .invalidConfiguration,
            message: "'\(spec)' is not a threshold: give METRIC>LIMIT or METRIC<LIMIT, LIMIT a change such as +5% "
                + "or a value such as 250, METRIC one of \(Self.metrics.map(\.name).joined(separator: ", "))")
    }

    /// The rows, in ``metrics`` order.
    public let rows: [Row]

    /// Compares `new` with `base`.
    public init(base: BenchReport, new: BenchReport) {
        self.rows = Self.metrics.map { Row(metric: $0, base: $0.value(base), new: $0.value(new)) }
    }

    /// The row of `metric`.
    public func row(_ metric: Metric) -> Row {
        self.rows.first { $0.metric == metric } ?? Row(metric: metric, base: nil, new: nil)
    }

    /// The table for a terminal: metric, base, new, change.
    public var text: String {
        var lines = [Self.pad("metric", 10) + Self.pad("base", 17) + Self.pad("new", 17) + "change"]
        for row in self.rows {
            let change = row.changePercent.map { String(format: "%+.1f%%", $0) } ?? "-"
            lines.append(
                Self.pad(row.metric.name, 10) + Self.pad(Self.figure(row.base, row.metric.unit), 17)
                    + Self.pad(Self.figure(row.new, row.metric.unit), 17) + change)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func figure(_ value: Double?, _ unit: String) -> String {
        guard let value else {
            return "-"
        }
        let number = value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String(format: "%.3f", value)
        return unit.isEmpty || unit == "%" ? number + unit : number + " " + unit
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
