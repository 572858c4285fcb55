import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

/// `batchfetch`: fetch large batches of HTTP resources with libcurl.
@main
struct BatchFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batchfetch",
        abstract: "Fetch large batches of HTTP resources as fast as libcurl allows.",
        subcommands: [FetchCommand.self, CrawlCommand.self, BenchCommand.self]
    )

    /// Runs the command, mapping usage errors to exit code 2 (as curl, grep and most shell tools do)
    /// instead of swift-argument-parser's default 64.
    static func main() async {
        do {
            var command = try Self.parseAsRoot()
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
}
