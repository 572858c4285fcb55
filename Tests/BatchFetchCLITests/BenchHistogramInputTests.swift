import CocktailReplica
import Foundation
import TestSupport
import Testing

/// Reports whose histograms another tool encoded: HdrHistogram's Python library (`hdrhistogram`,
/// which scripts/setup --build-tests installs) compresses with real DEFLATE blocks, and
/// `bench merge` and `bench report` must read them; a damaged one is refused with a reason.
@Suite(.serialized)
struct BenchHistogramInputTests {
    /// A saved run in `directory` whose every histogram Python's `hdrhistogram` re-encoded.
    private func pythonEncodedRun(_ directory: borrowing ScratchDirectory) async throws -> String {
        let ours = directory.path("ours.json")
        let theirs = directory.path("theirs.json")
        try await ReplicaServer.withServer { server in
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "1000", "-c", "4", "--rate", "2000", "--interval",
                "100ms", "--json",
            ])
            #expect(output.status == 0, "\(output)")
            try output.stdout.write(toFile: ours, atomically: true, encoding: .utf8)
        }
        let script = """
            import base64, json, sys, zlib
            try:
                from hdrh.histogram import HdrHistogram
            except ImportError:
                print("the hdrhistogram Python package is missing (scripts/setup --build-tests installs it)")
                sys.exit(3)
            def again(text):
                encoded = HdrHistogram.decode(text).encode().decode()
                # Really compressed: the DEFLATE stream's first block is not a stored one.
                assert (base64.b64decode(encoded)[10] >> 1) & 3 != 0, "hdrhistogram wrote stored blocks"
                return encoded
            report = json.load(open(sys.argv[1]))
            for key in ("latency", "service"):
                report["histograms"][key] = again(report["histograms"][key])
            for point in report["series"]:
                for key in ("latency_hdr", "service_hdr"):
                    point[key] = again(point[key])
            json.dump(report, open(sys.argv[2], "w"))
            """
        let converted = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, ours, theirs])
        #expect(converted.status == 0, "\(converted.stdout)\(converted.stderr)")
        return theirs
    }

    @Test func mergeReadsHistogramsHdrHistogramsPythonLibraryCompressedAndFindsItsPercentiles() async throws {
        let directory = try ScratchDirectory("bench-python-merge")
        let theirs = try await self.pythonEncodedRun(directory)
        let merged = directory.path("merged.json")
        let output = try await Executable.batchfetch().runOffPool(["bench", "merge", theirs, theirs, "-o", merged])
        #expect(output.status == 0, "\(output)")
        let script = """
            import json, sys
            from hdrh.histogram import HdrHistogram
            theirs, merged = (json.load(open(path)) for path in sys.argv[1:3])
            twice = HdrHistogram.decode(theirs["histograms"]["latency"])
            twice.add(HdrHistogram.decode(theirs["histograms"]["latency"]))
            problems = []
            def bucket(ms):
                return twice.get_lowest_equivalent_value(round(ms * 1000)) / 1000
            if merged["requests"] != twice.get_total_count():
                problems.append(f"count: merged {merged['requests']}, hdrhistogram {twice.get_total_count()}")
            for key, percentile in [("p50", 50), ("p90", 90), ("p99", 99), ("p99_9", 99.9)]:
                ours, lib = bucket(merged["latency_ms"][key]), bucket(twice.get_value_at_percentile(percentile) / 1000)
                if ours != lib:
                    problems.append(f"{key}: merged {ours}, hdrhistogram {lib}")
            samples = sum(HdrHistogram.decode(p["latency_hdr"]).get_total_count() for p in merged["series"])
            if samples != twice.get_total_count():
                problems.append(f"series samples: {samples}")
            print("\\n".join(problems))
            sys.exit(1 if problems else 0)
            """
        let checked = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, theirs, merged])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
    }

    @Test func reportDrawsTheSpectrumOfAHistogramHdrHistogramsPythonLibraryCompressed() async throws {
        let directory = try ScratchDirectory("bench-python-report")
        let theirs = try await self.pythonEncodedRun(directory)
        let page = directory.path("page.html")
        let output = try await Executable.batchfetch().runOffPool(["bench", "report", theirs, "--html", page])
        #expect(output.status == 0, "\(output)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let spectrum = try #require(html.range(of: "\"spectrum\":[["), "the page has no spectrum")
        #expect(html[spectrum.upperBound...].prefix(40).contains(","), "\(html[spectrum.lowerBound...].prefix(80))")
    }

    @Test func aTruncatedHistogramIsRefusedByMergeAndReportNamingWhy() async throws {
        let directory = try ScratchDirectory("bench-python-truncated")
        let theirs = try await self.pythonEncodedRun(directory)
        let cut = directory.path("cut.json")
        var report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: theirs))) as? [String: Any])
        var histograms = try #require(report["histograms"] as? [String: Any])
        let latency = try #require(histograms["latency"] as? String)
        var bytes = [UInt8](try #require(Data(base64Encoded: latency)))
        bytes.removeLast(12)
        histograms["latency"] = Data(bytes).base64EncodedString()
        report["histograms"] = histograms
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: cut))
        let merged = try await Executable.batchfetch().runOffPool(
            ["bench", "merge", theirs, cut, "-o", directory.path("merged.json")])
        #expect(merged.status == 2, "\(merged)")
        #expect(merged.stderr.contains("report 2") && merged.stderr.contains("cut short"), "\(merged.stderr)")
        let page = try await Executable.batchfetch().runOffPool(
            ["bench", "report", cut, "--html", directory.path("page.html")])
        #expect(page.status == 2, "\(page)")
        #expect(page.stderr.contains("cut.json") && page.stderr.contains("cut short"), "\(page.stderr)")
    }
}
