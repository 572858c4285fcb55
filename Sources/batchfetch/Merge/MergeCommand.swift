import ArgumentParser
import BatchFetch
import BatchFetchMerge
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `batchfetch merge`: the records of `fetch --shard K/N` runs, merged into one run's records.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the records of fetch --shard K/N runs into one file in index order.",
        discussion: """
            Streams a k-way merge by index (memory flat in the number of records) and checks that \
            every index is there once and that all shards come from one --shard K/N split of one \
            input. Each shard's split is read from its stats file (fetch --shard K/N --stats FILE): \
            X.stats.json beside X.ndjson, or the files given with --stats. Without stats files only \
            the indices are checked. Shards written with --order completion are sorted first, in \
            temporary files. Missing shards are named with the command that runs them again. \
            Exit status: 0 complete, 1 records missing, 2 mixed splits, conflicting duplicates, \
            unreadable input or unwritable output.
            """
    )

    @Argument(help: "Records files of the shards (e.g. shard.*.ndjson).")
    var files: [String]

    @Option(
        name: .shortAndLong,
        help: "Write the merged records to FILE (complete or not: exit 1 says which) instead of standard output.")
    var output: String?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("The shards' stats files, when not X.stats.json beside X.ndjson.", valueName: "FILE"))
    var stats: [String] = []

    @Option(help: ArgumentHelp("Sort completion-order shards in DIR (default $TMPDIR, else /tmp).", valueName: "DIR"))
    var tempDir: String?

    @Flag(name: .shortAndLong, help: "Say nothing on standard error when the merge is complete.")
    var quiet = false

    func validate() throws {
        guard !self.files.isEmpty else {
            throw ValidationError("give the shards' records files, e.g. batchfetch merge shard.*.ndjson")
        }
        if let output = self.output, self.files.contains(where: { Self.sameFile($0, output) }) {
            throw ValidationError("-o \(output) is one of the files to merge")
        }
    }

    func run() throws {
        let merge: ShardMerge
        do throws(MergeError) {
            let (inputs, orphans, absent) = try MergeInput.pairing(records: self.files, stats: self.stats)
            merge = ShardMerge(
                inputs: inputs, orphans: orphans, absent: absent,
                temporaryDirectory: self.tempDir ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp",
                currentDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            throw Self.fail(error)
        }
        let target = try MergeTarget(path: self.output)
        let report: MergeReport
        do throws(MergeError) {
            report = try merge.run(into: target.sink)
            try target.close()
        } catch {
            target.discard()
            throw Self.fail(error)
        }
        try target.keep()
        if !self.quiet || !report.isComplete {
            FileHandleOutput.standardError.write(report.text)
        }
        if !report.isComplete {
            throw ExitCode.someFailed
        }
    }

    private static func fail(_ error: MergeError) -> ExitCode {
        if error.kind == .brokenPipe {
            return ExitCode.brokenPipe
        }
        FileHandleOutput.standardError.write("batchfetch merge: \(error.message)\n")
        return ExitCode.usage
    }

    private static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
