import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `bench --series`, `--hdr-log` and the histograms of `--json`, end to end against the replica:
/// the series accounts for every request, and HdrHistogram's own Python library reads what the
/// command wrote and finds the same figures.
@Suite(.serialized)
struct BenchSeriesTests {
    private struct Point: Decodable {
        let t_s: Double
        let interval_s: Double
        let intended: Int
        let sent: Int
        let done: Int
        let in_flight: Int
        let ok: Int
        let statuses: [String: Int]
    }

    private func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test func theSeriesAccountsForEveryRequestOfAClosedLoop() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-series")
            let series = directory.path("series.ndjson")
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "400", "-c", "4", "--series", series,
                "--interval", "50ms", "-q",
            ])
            #expect(output.status == 0, "\(output)")
            let points = try self.lines(series).map { try JSONDecoder().decode(Point.self, from: Data($0.utf8)) }
            #expect(!points.isEmpty)
            #expect(points.reduce(0) { $0 + $1.done } == 400)
            #expect(points.reduce(0) { $0 + $1.sent } == 400 && points.reduce(0) { $0 + $1.intended } == 400)
            #expect(points.reduce(0) { $0 + $1.ok } == 400)
            #expect(points.reduce(0) { $0 + ($1.statuses["200"] ?? 0) } == 400)
            #expect(points.last?.in_flight == 0, "nothing is in flight once the run is over")
            #expect(zip(points, points.dropFirst()).allSatisfy { $0.t_s < $1.t_s }, "in time order")
            // Every interval but the last is a whole one.
            #expect(points.dropLast().allSatisfy { abs($0.interval_s - 0.05) < 1e-6 }, "\(points.map(\.interval_s))")
        }
    }

    @Test func anOpenLoopsSeriesCountsWhatWasDueBySchedule() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-series-open")
            let series = directory.path("series.ndjson")
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "60", "-c", "4", "--rate", "200", "--series", series,
                "--interval", "100ms", "-q",
            ])
            #expect(output.status == 0, "\(output)")
            let points = try self.lines(series).map { try JSONDecoder().decode(Point.self, from: Data($0.utf8)) }
            #expect(points.reduce(0) { $0 + $1.intended } == 60)
            #expect(points.reduce(0) { $0 + $1.sent } == 60 && points.reduce(0) { $0 + $1.done } == 60)
            // 200/s: 20 due per whole 100 ms interval (the first also holds request 0, due at once),
            // fewer once the schedule's 0.3 s are over, however long the last responses take.
            let intended = points.map(\.intended)
            #expect(intended.first == 21 && intended.allSatisfy { $0 <= 21 }, "\(intended)")
        }
    }

    @Test func stagesRampTheRateUpAndDownOnOnePool() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-stages")
            let series = directory.path("series.ndjson")
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "--stages", "400ms:0-500/s,400ms:500/s,400ms:500-0/s", "-c",
                "8", "--series", series, "--interval", "100ms", "--json",
            ])
            #expect(output.status == 0, "\(output)")
            // 100 requests up the ramp, 200 on the plateau, 100 down.
            #expect(output.stdout.contains("\"requests\":400,"), "\(output.stdout.prefix(300))")
            #expect(output.stdout.contains("\"stages\":\"400ms:0-500/s"), "\(output.stdout.suffix(300))")
            let points = try self.lines(series).map { try JSONDecoder().decode(Point.self, from: Data($0.utf8)) }
            #expect(points.reduce(0) { $0 + $1.intended } == 400)
            let intended = points.map(\.intended)
            try #require(intended.count >= 12, "\(intended)")
            // Rising on the ramp, flat on the plateau (50 per 100 ms), falling after.
            #expect(intended[0] < intended[2] && intended[2] < intended[4], "\(intended)")
            #expect(intended[5...7].allSatisfy { (49...51).contains($0) }, "\(intended)")
            #expect(intended[9] > intended[11], "\(intended)")
            #expect(server.stats().connectionsAccepted <= 8, "one pool: connections are reused across stages")
        }
    }

    /// HdrHistogram's Python library (`hdrhistogram` on PyPI, which scripts/setup --build-tests
    /// installs) decodes the report's histograms and the interval log. 1,000 samples, so every
    /// percentile's rank is a whole number and the library's rounding of ranks matches ours.
    @Test func hdrHistogramsOwnLibraryReadsTheHistogramsAndTheLogAndGetsTheSamePercentiles() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-hdr")
            let log = directory.path("run.hlog")
            let report = directory.path("run.json")
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "1000", "-c", "4", "--rate", "2000", "--json",
                "--hdr-log", log, "--interval", "100ms",
            ])
            #expect(output.status == 0, "\(output)")
            try output.stdout.write(toFile: report, atomically: true, encoding: .utf8)
            let script = """
                import json, sys
                try:
                    from hdrh.histogram import HdrHistogram
                    from hdrh.log import HistogramLogReader
                except ImportError:
                    print("the hdrhistogram Python package is missing (scripts/setup --build-tests installs it)")
                    sys.exit(3)
                report = json.load(open(sys.argv[1]))
                problems = []
                def same(what, ours, theirs):
                    if abs(ours - theirs) > 1e-9:
                        problems.append(f"{what}: batchfetch {ours}, hdrhistogram {theirs}")
                # The same value to the histogram's precision: in the same bucket. (Ours are capped at
                # the largest value recorded, which the encoding keeps only to its bucket.)
                def bucket(h, ms):
                    return h.get_lowest_equivalent_value(round(ms * 1000)) / 1000
                whole = HdrHistogram.decode(report["histograms"]["latency"])
                same("count", report["requests"], whole.get_total_count())
                for key, percentile in [("p50", 50), ("p90", 90), ("p99", 99), ("p99_9", 99.9)]:
                    same(key, bucket(whole, report["latency_ms"][key]),
                         bucket(whole, whole.get_value_at_percentile(percentile) / 1000))
                for key, theirs in [("max", whole.get_max_value()), ("min", whole.get_min_value())]:
                    same(key, bucket(whole, report["latency_ms"][key]), bucket(whole, theirs / 1000))
                service = HdrHistogram.decode(report["histograms"]["service"])
                same("service p50", bucket(service, report["phases_ms"]["total"]),
                     bucket(service, service.get_value_at_percentile(50) / 1000))
                # The log: its untagged intervals add up to the whole run's latency histogram.
                added = HdrHistogram(1, 3600000000, 3)
                tagged = 0
                for line in open(sys.argv[2]):
                    if line.startswith("Tag=service,"):
                        tagged += 1
                    elif line[0].isdigit():
                        added.add(HdrHistogram.decode(line.strip().split(",")[3]))
                same("log count", whole.get_total_count(), added.get_total_count())
                for percentile in [50, 90, 99, 99.9, 100]:
                    same(f"log p{percentile}", whole.get_value_at_percentile(percentile) / 1000,
                         added.get_value_at_percentile(percentile) / 1000)
                # And the library's own log reader takes every line, tagged ones included.
                reader = HistogramLogReader(sys.argv[2], HdrHistogram(1, 3600000000, 3))
                intervals = 0
                while reader.get_next_interval_histogram() is not None:
                    intervals += 1
                same("intervals read", 2 * tagged, intervals)
                same("series points", len(report["series"]), tagged)
                print("\\n".join(problems))
                sys.exit(1 if problems else 0)
                """
            let checked = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, report, log])
            #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        }
    }

    /// `--json` takes its series from the temporary file the points were written to as they were
    /// cut (nothing kept in memory): the report's `series` is the `--series` file, point for point
    /// and byte for byte, and parses as part of one JSON object.
    @Test func theJSONReportsSeriesIsTheSeriesFileByteForByte() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-series-json")
            let series = directory.path("series.ndjson")
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "300", "-c", "4", "--series", series,
                "--interval", "20ms", "--json", "--label", "spilled",
            ])
            #expect(output.status == 0, "\(output)")
            let lines = try self.lines(series)
            #expect(lines.count >= 2, "\(lines.count) points")
            #expect(output.stdout.contains("\"series\":[" + lines.joined(separator: ",") + "]"))
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let points = try #require(report["series"] as? [[String: Any]])
            #expect(points.count == lines.count)
            #expect(points.reduce(0) { $0 + ($1["done"] as? Int ?? 0) } == 300)
            #expect((report["settings"] as? [String: Any])?["label"] as? String == "spilled")
        }
    }

    @Test func benchAndBenchRunAreTheSameCommandWithURLsOrAFile() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("bench-spellings")
            let urls = directory.path("urls.txt")
            try "\(server.url("list.php?c=list"))\n".write(toFile: urls, atomically: true, encoding: .utf8)
            let spellings: [[String]] = [
                ["bench", server.url("list.php?c=list")], ["bench", "run", server.url("list.php?c=list")],
                ["bench", "-i", urls], ["bench", "run", "-i", urls],
            ]
            for spelling in spellings {
                let output = try await Executable.batchfetch().runOffPool(spelling + ["-n", "5", "-q"])
                #expect(output.status == 0, "\(spelling): \(output)")
                #expect(output.stdout.hasPrefix("5 requests, 5 ok, 0 failed"), "\(spelling): \(output)")
            }
            #expect(server.stats().requests == 20)
        }
    }
}
