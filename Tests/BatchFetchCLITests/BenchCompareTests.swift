import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch bench compare`: the table of changes and the exit status a CI gate reads, from a
/// real run's report and copies of it with figures changed.
@Suite(.serialized)
struct BenchCompareTests {
    /// A real report, and a copy with `changes` applied (`"latency_ms.p99": 1.1` multiplies).
    private func reports(_ directory: borrowing ScratchDirectory, scaling changes: [String: Double]) async throws -> (
        base: String, new: String
    ) {
        let base = directory.path("base.json")
        let new = directory.path("new.json")
        try await ReplicaServer.withServer { server in
            let output = try await Executable.batchfetch().runOffPool([
                "bench", server.url("list.php?c=list"), "-n", "50", "-c", "2", "--json",
            ])
            #expect(output.status == 0, "\(output)")
            try output.stdout.write(toFile: base, atomically: true, encoding: .utf8)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: base))
        var report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for (path, factor) in changes {
            let keys = path.split(separator: ".").map(String.init)
            if keys.count == 2, var inner = report[keys[0]] as? [String: Any], let value = inner[keys[1]] as? Double {
                inner[keys[1]] = value * factor
                report[keys[0]] = inner
            } else if let value = report[path] as? Double {
                report[path] = value * factor
            }
        }
        try JSONSerialization.data(withJSONObject: report).write(to: URL(fileURLWithPath: new))
        return (base, new)
    }

    @Test func aReportComparedWithItselfCrossesNoThreshold() async throws {
        let directory = try ScratchDirectory("compare-same")
        let (base, _) = try await self.reports(directory, scaling: [:])
        let output = try Executable.batchfetch().run(["bench", "compare", base, base, "--fail-if", "p99>+5%,rps<-3%"])
        #expect(output.status == 0, "\(output)")
        let rows = output.stdout.split(separator: "\n")
        #expect(rows.first?.hasPrefix("metric") == true)
        #expect(rows.contains { $0.hasPrefix("p99 ") && $0.hasSuffix("+0.0%" as String) }, "\(output.stdout)")
        #expect(rows.contains { $0.hasPrefix("rps ") }, "\(output.stdout)")
    }

    @Test func aSlowerTailOrALowerThroughputFailsTheGate() async throws {
        let directory = try ScratchDirectory("compare-worse")
        let (base, new) = try await self.reports(
            directory, scaling: ["latency_ms.p99": 1.10, "requests_per_second": 0.95])
        let tail = try Executable.batchfetch().run(["bench", "compare", base, new, "--fail-if", "p99>+5%"])
        #expect(tail.status == 1, "\(tail)")
        #expect(tail.stderr.contains("threshold crossed: p99>+5%"), "\(tail)")
        let rows = tail.stdout.split(separator: "\n")
        #expect(rows.contains { $0.hasPrefix("p99 ") && $0.hasSuffix("+10.0%" as String) }, "\(tail.stdout)")
        let throughput = try Executable.batchfetch().run(["bench", "compare", base, new, "--fail-if", "rps<-3%"])
        #expect(throughput.status == 1 && throughput.stderr.contains("rps<-3%"), "\(throughput)")
        let loose = try Executable.batchfetch().run(["bench", "compare", base, new, "--fail-if", "p99>+20%,rps<-10%"])
        #expect(loose.status == 0, "\(loose)")
        // Absolute limits are on the new run: no request failed.
        let absolute = try Executable.batchfetch().run(["bench", "compare", base, new, "--fail-if", "failed>0"])
        #expect(absolute.status == 0, "\(absolute)")
        let noGate = try Executable.batchfetch().run(["bench", "compare", base, new])
        #expect(noGate.status == 0, "a table alone never fails: \(noGate)")
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let directory = try ScratchDirectory("compare-usage")
        let (base, _) = try await self.reports(directory, scaling: [:])
        let notAReport = directory.path("other.json")
        try #"{"records": 3}"#.write(toFile: notAReport, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            ([base, base, "--fail-if", "p98>5%"], "p98>5%"),
            ([base, base, "--fail-if", "p99=5%"], "p99=5%"),
            ([base, base, "--fail-if", "p99>fast"], "p99>fast"),
            ([base, directory.path("missing.json")], "missing.json"),
            ([base, notAReport], "is not a report"),
            ([base], "new"),
        ]
        for (arguments, message) in cases {
            let output = try Executable.batchfetch().run(["bench", "compare"] + arguments)
            #expect(output.status == 2, "\(arguments): \(output)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }
}
