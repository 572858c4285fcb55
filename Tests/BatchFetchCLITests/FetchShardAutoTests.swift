import Foundation
import TestSupport
import Testing

/// `fetch --shard auto`: K/N from a Slurm array's or a Kubernetes Indexed Job's variables (issue 42).
@Suite(.serialized)
struct FetchShardAutoTests {
    private static let slurmArray = ["SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7"]

    /// `--array=1-7:2`: tasks 1, 3, 5 and 7 are shards 0/4 … 3/4, and together fetch every line once.
    @Test func aSteppedSlurmArrayGivesEachTaskItsPlaceAmongTheTasks() async throws {
        try await TestHTTPServer.with { server in
            let list = FileManager.default.temporaryDirectory.appendingPathComponent("bf-auto-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: list) }
            let lines = (0..<40).map { "\(server.baseURL)/ok?i=\($0)" }
            try Data(lines.joined(separator: "\n").utf8).write(to: list)
            var union: [Int] = []
            for (k, id) in [1, 3, 5, 7].enumerated() {
                let environment = Self.slurmArray.merging([
                    "SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4",
                ]) { $1 }
                let output = try Executable("batchfetch").run(
                    ["fetch", "-q", "--body", "none", "--shard", "auto", "-i", list.path], environment: environment)
                #expect(output.status == 0, "\(output.summary)")
                #expect(
                    output.stderr
                        == "batchfetch: --shard auto: shard \(k)/4 from the Slurm array (task \(id) of --array=1-7:2)\n"
                )
                let expected = try Executable("batchfetch").run(
                    ["fetch", "-q", "--body", "none", "--shard", "\(k)/4", "-i", list.path])
                let indices = try output.records().compactMap { $0["index"] as? Int }
                #expect(indices == (try expected.records().compactMap { $0["index"] as? Int }))
                union += indices
            }
            #expect(union.sorted() == Array(0..<40))
        }
    }

    @Test func aKubernetesIndexedJobTakesNFromTheFlagOrTheEnvironment() throws {
        let fetch = ["fetch", "-q", "--shard", "auto", "-i", "/dev/null"]
        let flag = try Executable("batchfetch").run(
            fetch + ["--shard-count", "3"], environment: ["JOB_COMPLETION_INDEX": "2"])
        #expect(flag.status == 0, "\(flag.summary)")
        #expect(flag.stderr.contains("shard 2/3 from the Kubernetes Indexed Job (JOB_COMPLETION_INDEX 2"))
        let variable = try Executable("batchfetch").run(
            fetch, environment: ["JOB_COMPLETION_INDEX": "0", "BATCHFETCH_SHARD_COUNT": "5"])
        #expect(variable.stderr.contains("shard 0/5"), "\(variable.summary)")
    }

    /// Exit 2, the first line saying why (then the usage line): no scheduler, no N, an index out of range, a list array.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SLURM_ARRAY_TASK_ID"] == nil, "run in a Slurm array"))
    func withoutAUsableSchedulerItIsAUsageError() throws {
        let fetch = ["fetch", "-q", "--shard", "auto", "-i", "/dev/null"]
        let cases: [([String], [String: String], String)] = [
            ([], [:], "neither SLURM_ARRAY_TASK_ID"),
            ([], ["JOB_COMPLETION_INDEX": "1"], "give --shard-count N"),
            (["--shard-count", "2"], ["JOB_COMPLETION_INDEX": "2"], "is not below the 2 completions"),
            (
                [],
                [
                    "SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "9",
                    "SLURM_ARRAY_TASK_COUNT": "3",
                ],
                "is not evenly spaced"
            ),
        ]
        for (arguments, environment, reason) in cases {
            let output = try Executable("batchfetch").run(fetch + arguments, environment: environment)
            #expect(output.status == 2, "\(environment): \(output.summary)")
            let first = output.stderr.split(separator: "\n").first ?? ""
            #expect(first.hasPrefix("Error: --shard auto: ") && first.contains(reason), "\(output.stderr)")
        }
    }
}
