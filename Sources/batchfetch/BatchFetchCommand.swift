import ArgumentParser
import BatchFetch
import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// `batchfetch`: fetch large batches of HTTP resources with libcurl.
@main
struct BatchFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batchfetch",
        abstract: "Fetch large batches of HTTP resources as fast as libcurl allows.",
        version: BatchFetch.versionReport,
        subcommands: [FetchCommand.self, CrawlCommand.self, BenchCommand.self, MergeCommand.self, SchemaCommand.self]
    )

    /// Runs the command, mapping usage errors to exit code 2 (as curl, grep and most shell tools do)
    /// instead of swift-argument-parser's default 64.
    static func main() async {
        Self.keepFreedMemory()
        // A misspelt level would otherwise measure the CPU's best under another name.
        if let problem = SIMDLevel.requestProblem {
            FileHandleOutput.standardError.write("error: \(problem)\n")
            Glibc.exit(2)
        }
        do {
            var command = try Self.parseAsRoot(ArgumentSpelling.normalized(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Self.exitCode(for: error)
            if code == .validationFailure {
                let message = Self.fullMessage(for: error)
                FileHandleOutput.standardError.write(message + "\n")
                Glibc.exit(2)
            }
            Self.exit(withError: error)
        }
    }

    /// Tells glibc to keep freed response buffers in its heaps rather than give them back to the
    /// kernel and fault them in again.
    ///
    /// Bodies are allocated on the engine thread and freed on the consumer's, and with glibc's
    /// defaults each arena kept trimming its top and mapping large buffers afresh, a page fault per
    /// page of every large body. The heaps keep up to 64 MiB free each until exit. A library cannot make this choice for its host process; the command can.
    /// Where the command is linked with tcmalloc (Package.swift), its `mallopt` does nothing.
    private static func keepFreedMemory() {
        _ = clinux_keep_freed_memory(64 << 20, 4 << 20)
    }
}
