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
            let marker = try #require(dom.range(of: "id=\"\(chart)\" data-points=\""), "\(chart) has no data-points")
            let count = Int(dom[marker.upperBound...].prefix { $0.isNumber }) ?? 0
            #expect(count > 0, "\(chart) drew no points")
        }
        #expect(dom.contains("rendered 4 charts"), "\(dom.suffix(400))")
        #expect(dom.range(of: #"data-render-ms="[0-9]+""#, options: .regularExpression) != nil, "no render time")
        let console = browser.stderr.split(separator: "\n").filter {
            $0.contains(":CONSOLE") || $0.contains("Uncaught")
        }
        #expect(console.isEmpty, "the console logged: \(console.joined(separator: "\n"))")
    }
}
