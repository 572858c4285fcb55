import BatchFetch
import BatchFetchBench
import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch bench report --html`: the page is loaded in a real browser (headless Chromium,
/// which scripts/setup --build-tests installs as root) and must draw every chart with data and
/// log nothing to the console.
@Suite(.serialized)
struct BenchReportPageTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Two runs, one of them with failures, as reports in `directory`.
    private func reports(_ directory: borrowing ScratchDirectory) async throws -> [String] {
        let files = [directory.path("good.json"), directory.path("mixed.json")]
        try await ReplicaServer.withServer { server in
            let runs = [
                [server.url("list.php?c=list"), "--label", "good"],
                [server.url("list.php?c=list"), server.url("nothing.php"), "--label", "mixed", "--retries", "0"],
            ]
            for (file, arguments) in zip(files, runs) {
                let output = try await Executable.batchfetch().runOffPool(
                    ["bench"] + arguments + ["-n", "300", "--rate", "600", "-c", "4", "--interval", "100ms", "--json"])
                #expect(output.status <= 1, "\(output)")
                try output.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            }
        }
        return files
    }

    /// The number in attribute `name` of the element with id `id` (`body`: the body) in `dom`.
    static func attribute(_ name: String, of id: String, in dom: String) -> Int? {
        guard let element = dom.range(of: id == "body" ? "<body " : "id=\"\(id)\"") else {
            return nil
        }
        let tag = dom[element.lowerBound...].prefix { $0 != ">" }
        guard let value = tag.range(of: " \(name)=\"") else {
            return nil
        }
        return Int(tag[value.upperBound...].prefix { $0.isNumber })
    }

    /// Loads `page` in headless Chromium and returns the DOM once its scripts have run.
    static func rendered(_ page: String, profile: String) async throws -> String {
        let browser = try await Executable(path: try #require(Self.chromium)).runOffPool(
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=\(profile)", "--dump-dom", "file://\(page)",
            ], deadline: 120)
        #expect(browser.status == 0, "\(browser)")
        return browser.stdout
    }

    @Test func thePageIsOneFileThatFetchesNothing() async throws {
        let directory = try ScratchDirectory("bench-page-file")
        let page = directory.path("report.html")
        let output = try await Executable.batchfetch().runOffPool(
            ["bench", "report"] + (try await self.reports(directory)) + ["--html", page, "--title", "a <test>"])
        #expect(output.status == 0, "\(output)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<title>a &lt;test&gt;</title>"))
        for reference in ["src=", "<link", "@import", "url(", "fetch(", "XMLHttpRequest"] {
            #expect(!html.contains(reference), "the page refers to something outside it: \(reference)")
        }
        #expect(html.contains("\"label\":\"good\"") && html.contains("\"label\":\"mixed\""))
    }

    @Test(
        .enabled(
            if: Self.chromium != nil,
            "chromium is not installed: scripts/setup --build-tests installs it (Debian's package) when run as root"))
    func everyChartIsDrawnWithDataInHeadlessChromiumAndTheConsoleIsSilent() async throws {
        let directory = try ScratchDirectory("bench-page-browser")
        let page = directory.path("report.html")
        let output = try await Executable.batchfetch().runOffPool(
            ["bench", "report"] + (try await self.reports(directory)) + ["--html", page])
        #expect(output.status == 0, "\(output)")
        let browser = try await Executable(path: try #require(Self.chromium)).runOffPool(
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=\(directory.path("profile"))", "--dump-dom", "file://\(page)",
            ], deadline: 120)
        #expect(browser.status == 0, "\(browser)")
        let dom = browser.stdout
        #expect(dom.contains("data-status=\"ok\""), "the script did not finish drawing: \(dom.suffix(400))")
        for chart in ["latency", "spectrum", "throughput", "statuses"] {
            let count = try #require(Self.attribute("data-points", of: chart, in: dom), "\(chart) has no data-points")
            #expect(count > 0, "\(chart) drew no points")
        }
        // Runs without --stages draw no boundaries.
        #expect(Self.attribute("data-stages", of: "latency", in: dom) == 0)
        #expect(Self.attribute("data-render-ms", of: "body", in: dom) != nil, "the page times its drawing")
        #expect(dom.contains("rendered 4 charts"), "\(dom.suffix(400))")
        #expect(dom.range(of: #"data-render-ms="[0-9]+""#, options: .regularExpression) != nil, "no render time")
        let console = browser.stderr.split(separator: "\n").filter {
            $0.contains(":CONSOLE") || $0.contains("Uncaught")
        }
        #expect(console.isEmpty, "the console logged: \(console.joined(separator: "\n"))")
    }

    @Test(.enabled(if: Self.chromium != nil, "chromium is not installed: scripts/setup --build-tests installs it"))
    func stageBoundariesAreDrawnInEveryTimeChart() async throws {
        let directory = try ScratchDirectory("bench-page-stages")
        let (run, page) = (directory.path("stages.json"), directory.path("report.html"))
        try await ReplicaServer.withServer { server in
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "--stages", "300ms:300/s,300ms:600/s,300ms:0-300/s", "-c", "4",
                "--interval", "100ms", "--json",
            ])
            #expect(output.status == 0, "\(output)")
            try output.stdout.write(toFile: run, atomically: true, encoding: .utf8)
        }
        let output = try await Executable.batchfetch().runOffPool(["bench", "report", run, "--html", page])
        #expect(output.status == 0, "\(output)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("\"stages\":[0.3,0.6]"))
        let dom = try await Self.rendered(page, profile: directory.path("profile"))
        #expect(dom.contains("data-status=\"ok\""), "\(dom.suffix(400))")
        for chart in ["latency", "throughput", "statuses"] {
            #expect(Self.attribute("data-stages", of: chart, in: dom) == 2, "\(chart)")
        }
        #expect(dom.components(separatedBy: "class=\"stage\"").count - 1 == 6, "two lines in each of three charts")
        #expect(dom.contains("Dotted vertical lines"))
    }

    /// 5,000 one-second intervals, one of them with a 900 ms spike: drawn as 1,000 rows of five
    /// intervals each, the spike kept as its row's largest value, the rates those of the intervals.
    @Test func aLongSeriesIsDrawnInGroupsThatKeepItsLargestLatency() async throws {
        let directory = try ScratchDirectory("bench-page-long")
        let (run, page) = (directory.path("long.json"), directory.path("report.html"))
        var usual = LatencyHistogram()
        usual.record(.milliseconds(10))
        var spike = LatencyHistogram()
        spike.record(.milliseconds(900))
        var report = BenchReport(requests: 500_000, ok: 500_000, failed: 0, durationSeconds: 5000)
        // Two points made (each encodes its histograms), copied for every second.
        let points = [usual, spike].map { latency in
            var point = SeriesPoint(offsetSeconds: 0, intervalSeconds: 1, time: 1e9, latency: latency, service: usual)
            point.done = 100
            point.ok = 100
            point.requestsPerSecond = 100
            return point
        }
        report.series = (1...5000).map { second in
            var point = points[second == 3333 ? 1 : 0]
            point.offsetSeconds = Double(second)
            point.time = 1e9 + Double(second)
            return point
        }
        try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: run))
        let output = try await Executable.batchfetch().runOffPool(["bench", "report", run, "--html", page])
        #expect(output.status == 0, "\(output)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        struct PageData: Decodable {
            struct Run: Decodable {
                let series: [[Double]]
                let intervalsPerRow: Int
            }
            let runs: [Run]
        }
        let data = try JSONDecoder().decode(PageData.self, from: Data(html[start.upperBound..<end.lowerBound].utf8))
        let series = try #require(data.runs.first).series
        #expect(series.count == 1000 && data.runs.first?.intervalsPerRow == 5)
        // 900 ms to the histogram's precision, in one row only.
        let spiked = series.filter { (899...901).contains($0[6]) && (899...901).contains($0[7]) }
        #expect(spiked.count == 1 && spiked.first?[0] == 3335, "\(spiked)")
        #expect(series.filter { $0[7] > 11 }.count == 1)
        #expect(series.allSatisfy { $0[1] == 100 && $0[9] == 5 }, "rates over the group, its length")
        #expect(series.last?[0] == 5000)
    }
}
