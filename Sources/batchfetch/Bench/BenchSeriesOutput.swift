import BatchFetch
import BatchFetchBench
import Foundation

/// Where `bench` writes its time series as the run goes: `--series` (one JSON line per interval)
/// and `--hdr-log` (HdrHistogram's interval log, which its tools and libraries read). Written
/// and flushed an interval at a time from the series' cutting task, so a long run can be
/// watched (`tail -f`) and an interrupted one keeps every interval it completed. For `--json`,
/// each point also goes to a ``BenchSeriesSpill``, from which the report takes its series.
final class BenchSeriesOutput: Sendable {
    private let series: FileHandleOutput?
    private let seriesPath: String?
    private let hdrLog: FileHandleOutput?
    private let hdrLogPath: String?
    /// Where the points wait for the `--json` report, when there is one.
    let spill: BenchSeriesSpill?

    /// Opens the files asked for.
    /// - Throws: ``ExitCode/usage`` when one cannot be created (said on standard error).
    init(series: String?, hdrLog: String?, spill: Bool) throws {
        self.series = try series.map { try FileHandleOutput.opening($0) }
        self.seriesPath = series
        self.hdrLog = try hdrLog.map { try FileHandleOutput.opening($0) }
        self.hdrLogPath = hdrLog
        self.spill = spill ? try BenchSeriesSpill() : nil
    }

    /// Writes the interval log's header, for a run that started at `startTime` (Unix seconds).
    func begin(startTime: Double) {
        guard let hdrLog = self.hdrLog else {
            return
        }
        let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: startTime))
        let start = String(format: "%.3f", startTime)
        hdrLog.write(
            """
            #[Histogram log format version 1.3]
            #[Written by batchfetch bench: values in microseconds, Interval_Max in milliseconds]
            #[Untagged: latency from each request's intended start; Tag=service: service time]
            #[StartTime: \(start) (seconds since epoch), \(date)]
            #[BaseTime: \(start) (seconds since epoch)]
            "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"

            """)
        hdrLog.flush()
    }

    /// Writes one interval.
    func write(_ point: SeriesPoint) {
        if self.series != nil || self.spill != nil {
            // As BenchReportFile encodes the report, so a spilled point reads as one kept in it.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(point) {
                let json = Array(data)
                self.spill?.append(json)
                if let series = self.series {
                    series.write(json + [0x0A])
                    series.flush()
                }
            }
        }
        if let hdrLog = self.hdrLog {
            let start = String(format: "%.3f", point.offsetSeconds - point.intervalSeconds)
            let length = String(format: "%.3f", point.intervalSeconds)
            let latencyMax = String(format: "%.3f", point.latency?.max ?? 0)
            let serviceMax = String(format: "%.3f", point.service?.max ?? 0)
            hdrLog.write(
                "\(start),\(length),\(latencyMax),\(point.latencyHistogram)\n"
                    + "Tag=service,\(start),\(length),\(serviceMax),\(point.serviceHistogram)\n")
            hdrLog.flush()
        }
    }

    /// Flushes both files.
    /// - Returns: `false` when a write failed (said on standard error).
    func finish() -> Bool {
        var good = true
        for (file, path) in [(self.series, self.seriesPath), (self.hdrLog, self.hdrLogPath)] {
            guard let file, let path else {
                continue
            }
            file.flush()
            if let failure = file.failure {
                FileHandleOutput.standardError.write(
                    "batchfetch: cannot write to \(path): \(String(cString: strerror(failure)))\n")
                good = false
            }
        }
        return good
    }
}
