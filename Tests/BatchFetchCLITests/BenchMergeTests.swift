import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch bench merge`: two runs made at the same time against servers of different
/// latency, merged; HdrHistogram's Python library adds the two runs' histograms itself and must
/// find the merged report's percentiles.
@Suite(.serialized)
struct BenchMergeTests {
    private func run(_ url: String, _ count: Int, _ file: String) async throws {
        let output = try await Executable.batchfetch().runOffPool([
            "bench", url, "-n", "\(count)", "-c", "4", "--rate", "400", "--interval", "100ms", "--json",
            "--label", "\(count)",
        ])
        #expect(output.status == 0, "\(output)")
        try output.stdout.write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// 600 + 400 samples: every percentile's rank is a whole number, so the library's rounding of
    /// ranks matches ours.
    @Test func mergedPercentilesAreThoseOfOneHistogramHoldingEverySample() async throws {
        let directory = try ScratchDirectory("bench-merge")
        let (first, second, all) = (directory.path("a.json"), directory.path("b.json"), directory.path("all.json"))
        var slow = ReplicaConfiguration()
        slow.faults.latency = ReplicaLatency(milliseconds: 5)
        try await ReplicaServer.withServer { fast in
            try await ReplicaServer.withServer(slow) { slow in
                async let one: Void = self.run(fast.url("list.php?c=list"), 600, first)
                async let two: Void = self.run(slow.url("list.php?c=list"), 400, second)
                _ = try await (one, two)
            }
        }
        let merged = try await Executable.batchfetch().runOffPool(["bench", "merge", first, second, "-o", all])
        #expect(merged.status == 0, "\(merged)")
        let script = """
            import json, sys
            try:
                from hdrh.histogram import HdrHistogram
            except ImportError:
                print("the hdrhistogram Python package is missing (scripts/setup --build-tests installs it)")
                sys.exit(3)
            a, b, merged = (json.load(open(path)) for path in sys.argv[1:4])
            problems = []
            def same(what, ours, theirs):
                if abs(ours - theirs) > 1e-9:
                    problems.append(f"{what}: merged {ours}, one histogram {theirs}")
            together = HdrHistogram.decode(a["histograms"]["latency"])
            together.add(HdrHistogram.decode(b["histograms"]["latency"]))
            # The same value to the histogram's precision: in the same bucket (a percentile in the
            # top bucket is capped at the largest value, which the encoding keeps to its bucket).
            def bucket(ms):
                return together.get_lowest_equivalent_value(round(ms * 1000)) / 1000
            same("count", merged["requests"], together.get_total_count())
            for key, percentile in [("p50", 50), ("p90", 90), ("p99", 99), ("p99_9", 99.9)]:
                same(key, bucket(merged["latency_ms"][key]), bucket(together.get_value_at_percentile(percentile) / 1000))
            same("max", bucket(merged["latency_ms"]["max"]), bucket(together.get_max_value() / 1000))
            kept = HdrHistogram.decode(merged["histograms"]["latency"])
            for percentile in [1, 50, 90, 99, 99.9, 100]:
                same(f"kept p{percentile}", kept.get_value_at_percentile(percentile),
                     together.get_value_at_percentile(percentile))
            same("series done", sum(p["done"] for p in merged["series"]), 1000)
            same("series samples", sum(HdrHistogram.decode(p["latency_hdr"]).get_total_count()
                                       for p in merged["series"]), together.get_total_count())
            same("runs", merged["settings"]["runs"], 2)
            same("statuses", merged["statuses"]["200"], 1000)
            print("\\n".join(problems))
            sys.exit(1 if problems else 0)
            """
        let checked = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, first, second, all])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        // Labels are kept, joined.
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: all))) as? [String: Any])
        #expect((report["settings"] as? [String: Any])?["label"] as? String == "600+400")
    }

    @Test func reportsThatCannotBeMergedExitWithTwo() async throws {
        let directory = try ScratchDirectory("bench-merge-usage")
        let (closed, open) = (directory.path("closed.json"), directory.path("open.json"))
        try await ReplicaServer.withServer { server in
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "20", "--json",
            ])
            try output.stdout.write(toFile: closed, atomically: true, encoding: .utf8)
            try await self.run(server.url("list.php?c=list"), 20, open)
        }
        let old = directory.path("old.json")
        var report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: closed))) as? [String: Any])
        report["histograms"] = nil
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: old))
        let cases: [([String], String)] = [
            ([closed, old], "no histograms"),
            ([closed, open], "differs from the first"),
            ([closed, directory.path("missing.json")], "missing.json"),
            ([], "Missing expected argument"),
        ]
        for (arguments, message) in cases {
            let output = try Executable.batchfetch().run(["bench", "merge"] + arguments)
            #expect(output.status == 2, "\(arguments): \(output)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }
}
