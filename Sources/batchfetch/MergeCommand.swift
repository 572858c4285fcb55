import ArgumentParser
import BatchFetch
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
            throw ExitCode(1)
        }
    }

    private static func fail(_ error: MergeError) -> ExitCode {
        if error.kind == .brokenPipe {
            return ExitCode(141)
        }
        FileHandleOutput.standardError.write("batchfetch merge: \(error.message)\n")
        return ExitCode(2)
    }

    private static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}

/// Where merged records go: standard output, or `-o FILE`. A regular file (or a new one) is
/// written under a temporary name in the same folder and renamed when the merge ends (complete or
/// not), so that FILE never holds a merge that stopped on an error; anything else (a device such
/// as /dev/null, a FIFO, a symbolic link) is written in place, as renaming onto it would replace
/// it. Buffers are written on a thread of their own (``QueuedOutput``), so the kernel copies one
/// while the merge fills the next.
private final class MergeTarget {
    private let file: FileHandleOutput
    private let queue: QueuedOutput
    private let path: String?
    private let temporary: String?

    init(path: String?) throws {
        var status = stat()
        guard let path else {
            self.file = FileHandleOutput.standardOutput
            self.queue = QueuedOutput(file: self.file)
            self.path = nil
            self.temporary = nil
            return
        }
        var temporary: String?
        if lstat(path, &status) != 0 || (status.st_mode & S_IFMT) == S_IFREG {
            let url = URL(fileURLWithPath: path)
            temporary =
                url.deletingLastPathComponent().appendingPathComponent(
                    ".\(url.lastPathComponent).merge-\(getpid())"
                ).path
        }
        guard let file = FileHandleOutput(path: temporary ?? path) else {
            FileHandleOutput.standardError.write(
                "batchfetch merge: cannot write to \(path): \(String(cString: strerror(errno)))\n")
            throw ExitCode(2)
        }
        self.file = file
        self.queue = QueuedOutput(file: file)
        self.path = path
        self.temporary = temporary
    }

    /// Queues a buffer; stops the merge once a write has failed.
    var sink: MergeSink {
        { [queue, file] (bytes: inout [UInt8]) throws(MergeError) in
            try Self.check(file)
            queue.write(&bytes)
        }
    }

    /// Waits for every buffer to be written. - Throws: the first write's failure.
    func close() throws(MergeError) {
        self.queue.close()
        try Self.check(self.file)
    }

    private static func check(_ file: FileHandleOutput) throws(MergeError) {
        guard let failure = file.failure else {
            return
        }
        if failure == EPIPE {
            throw MergeError(.brokenPipe, "the output's reader went away")
        }
        throw MergeError(.unwritable, "cannot write the merged records: \(String(cString: strerror(failure)))")
    }

    /// Gives the records file its name.
    func keep() throws {
        guard let path = self.path, let temporary = self.temporary else {
            return
        }
        guard rename(temporary, path) == 0 else {
            FileHandleOutput.standardError.write(
                "batchfetch merge: cannot write to \(path): \(String(cString: strerror(errno)))\n")
            unlink(temporary)
            throw ExitCode(2)
        }
    }

    /// Removes the temporary file of a merge that stopped on an error.
    func discard() {
        self.queue.close()
        if let temporary = self.temporary {
            unlink(temporary)
        }
    }
}
