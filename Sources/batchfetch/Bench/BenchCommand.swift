import ArgumentParser

/// `batchfetch bench`: measure a server, and read saved runs back. `run` is the default, so
/// `batchfetch bench URL…` and `batchfetch bench -i FILE` measure as they always did.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure an HTTP server: latency percentiles, throughput, a time series; compare and merge runs.",
        discussion: """
            'batchfetch bench URL…' is 'batchfetch bench run URL…' (see 'batchfetch bench run --help'). \
            The other subcommands read the reports 'bench run --json' writes.
            """,
        subcommands: [
            BenchRunCommand.self, BenchCompareCommand.self, BenchMergeCommand.self, BenchReportCommand.self,
        ],
        defaultSubcommand: BenchRunCommand.self
    )
}
