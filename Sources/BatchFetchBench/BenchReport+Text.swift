import BatchFetch
import Foundation

extension BenchReport {
    /// The report for a person at a terminal: plain ASCII, one figure group per line, and the
    /// latency distribution as horizontal bars scaled to the fullest bucket.
    ///
    /// ```
    /// closed-loop, 64 in flight: 1000 requests in 0.35 s
    ///   ok 1000, failed 0; statuses 200 x1000; over HTTP/1.1 x1000
    /// throughput: 2857.1 req/s, 6.30 MB/s (2203000 body bytes); 64 connections opened, 0 retries
    /// latency: min 20.06ms  p50 20.48ms  p90 21.2ms  p99 22.3ms  p99.9 23.0ms  max 23.1ms  (mean 20.6ms)
    /// ```
    /// The run in one line: requests, ok, failed, req/s, MB/s, p50 and p99 latency.
    public var summaryLine: String {
        let latency = self.latency.map { String(format: ", p50 %.3f ms, p99 %.3f ms", $0.p50, $0.p99) } ?? ""
        return String(
            format: "%d requests, %d ok, %d failed in %.2f s: %.0f req/s, %.1f MB/s", self.requests, self.ok,
            self.failed, self.durationSeconds, self.requestsPerSecond, self.megabytesPerSecond) + latency
    }

    public var text: String {
        var lines: [String] = []
        var header = self.mode
        if let rate = self.rate {
            header += " at \(Self.number(rate)) req/s"
        }
        header += ", \(self.concurrency) in flight: \(self.requests) requests in "
        header += String(format: "%.2f s", self.durationSeconds)
        lines.append(header)
        var counts = "  ok \(self.ok), failed \(self.failed)"
        if !self.statuses.isEmpty {
            counts += "; statuses " + Self.tally(self.statuses, order: { (Int($0) ?? 0) < (Int($1) ?? 0) })
        }
        if !self.protocols.isEmpty {
            counts += "; over " + Self.tally(self.protocols, order: <)
        }
        lines.append(counts)
        if !self.errors.isEmpty {
            lines.append("  errors " + Self.tally(self.errors, order: <))
        }
        lines.append(
            String(format: "throughput: %.1f req/s, %.2f MB/s", self.requestsPerSecond, self.megabytesPerSecond)
                + " (\(self.bytes) body bytes); \(self.connections) connections opened, \(self.retries) retries")
        if let latency = self.latency {
            let figures: [(String, Double)] = [
                ("min", latency.min), ("p50", latency.p50), ("p90", latency.p90), ("p99", latency.p99),
                ("p99.9", latency.p99_9), ("max", latency.max),
            ]
            lines.append(
                "latency: " + figures.map { "\($0.0) \(Self.milliseconds($0.1))" }.joined(separator: "  ")
                    + "  (mean \(Self.milliseconds(latency.mean)), stdev \(Self.milliseconds(latency.stdev)))")
        } else {
            lines.append("latency: no responses")
        }
        let phases: [(String, Double?)] = [
            ("dns", self.phases.dns), ("connect", self.phases.connect), ("tls", self.phases.tls),
            ("first byte", self.phases.firstByte), ("total", self.phases.total),
        ]
        lines.append(
            "phases (median, cumulative): "
                + phases.map { "\($0.0) \($0.1.map(Self.milliseconds) ?? "-")" }.joined(separator: "  ")
                + "  (dns, connect over \(self.phases.newConnectionSamples) new connections)")
        if !self.histogram.isEmpty {
            lines.append("latency distribution:")
            lines += self.histogramLines()
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The distribution as bars: `  20.1ms -   20.4ms |#########           |   412  41.2%`.
    func histogramLines(width: Int = 40) -> [String] {
        let fullest = Swift.max(self.histogram.map(\.count).max() ?? 0, 1)
        let total = Swift.max(self.histogram.reduce(0) { $0 + $1.count }, 1)
        let from = self.histogram.map { Self.milliseconds($0.fromMilliseconds) }
        let to = self.histogram.map { Self.milliseconds($0.toMilliseconds) }
        let fromWidth = from.map(\.count).max() ?? 0
        let toWidth = to.map(\.count).max() ?? 0
        let countWidth = String(fullest).count
        return self.histogram.indices.map { index in
            let bucket = self.histogram[index]
            // A bucket that holds anything shows at least one mark, so a rare tail stays visible.
            var marks = bucket.count * width / fullest
            if bucket.count > 0 && marks == 0 {
                marks = 1
            }
            let bar = String(repeating: "#", count: marks) + String(repeating: " ", count: width - marks)
            let share = String(format: "%5.1f%%", Double(bucket.count) * 100 / Double(total))
            return "  " + Self.pad(from[index], fromWidth) + " - " + Self.pad(to[index], toWidth) + " |" + bar + "| "
                + Self.pad(String(bucket.count), countWidth) + " " + share
        }
    }

    /// A duration given in milliseconds, in the unit that reads best, with three or four digits:
    /// `812us`, `20.41ms`, `1.250s`.
    static func milliseconds(_ value: Double) -> String {
        if value < 1 {
            return String(format: "%.0fus", value * 1000)
        }
        if value < 10 {
            return String(format: "%.3fms", value)
        }
        if value < 100 {
            return String(format: "%.2fms", value)
        }
        if value < 1000 {
            return String(format: "%.1fms", value)
        }
        return String(format: "%.3fs", value / 1000)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }

    private static func tally(_ counts: [String: Int], order: (String, String) -> Bool) -> String {
        counts.keys.sorted(by: order).map { "\($0) x\(counts[$0] ?? 0)" }.joined(separator: ", ")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - text.count)) + text
    }
}
