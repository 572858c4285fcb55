import BatchFetch

/// Merges the records files of `fetch --shard K/N` runs into one stream in index order, checking
/// the contract on the way: every index once, every shard from one split of one input.
///
/// The shards' stats files (their ``ShardManifest``) say the split: N, the input's URL line
/// count and digest, each shard's order and whether its run completed. Without them only the
/// indices are checked (no gap, no conflicting duplicate), and records missing past the highest
/// index cannot be noticed. Shards written in completion order are sorted first, in bounded
/// memory (``RecordSorter``); the merge itself streams (``RecordMerger``).
///
/// Threading: a value; ``run(into:)`` blocks the calling thread on file I/O, so call it
/// off the cooperative pool for large inputs.
public struct ShardMerge: Sendable {
    public var inputs: [MergeInput]
    /// Stats files whose records files were not among the inputs.
    public var orphans: [MergeInput.OrphanStats]
    /// Records files named but not there.
    public var absent: [String]
    /// Where completion-order shards are sorted (as much space as they take).
    public var temporaryDirectory: String
    /// The folder re-run commands are written for (a `cd` precedes those run elsewhere).
    public var currentDirectory: String

    /// Creates a merge of `inputs` (see ``MergeInput/pairing(records:stats:)``).
    public init(
        inputs: [MergeInput], orphans: [MergeInput.OrphanStats] = [], absent: [String] = [],
        temporaryDirectory: String, currentDirectory: String
    ) {
        self.inputs = inputs
        self.orphans = orphans
        self.absent = absent
        self.temporaryDirectory = temporaryDirectory
        self.currentDirectory = currentDirectory
    }

    private var manifests: [(source: String, manifest: ShardManifest)] {
        self.inputs.compactMap { input in input.manifest.map { (input.path, $0) } }
            + self.orphans.map { ($0.statsPath, $0.manifest) }
    }

    /// The split every stats file describes, or `nil` when there are none. The runs that
    /// completed say it all; an interrupted run read only part of the input, so only its N and
    /// its line count (no more than the whole input's) can be checked.
    /// - Throws: ``MergeError/Kind/mixedSplits`` when they describe more than one.
    public func split() throws(MergeError) -> MergeReport.Split? {
        let manifests = self.manifests
        guard let first = manifests.first?.manifest else {
            return nil
        }
        let whole = manifests.first { $0.manifest.complete }?.manifest
        let consistent = manifests.allSatisfy { _, manifest in
            guard let whole else {
                return manifest.count == first.count
            }
            return manifest.complete
                ? manifest.isSameSplit(as: whole)
                : manifest.count == whole.count && manifest.inputLines <= whole.inputLines
        }
        guard consistent else {
            // One line per split, naming its files: the odd one out shows at a glance.
            var splits: [(manifest: ShardManifest, sources: [String])] = []
            for (source, manifest) in manifests {
                if let position = splits.firstIndex(where: { $0.manifest.isSameSplit(as: manifest) }) {
                    splits[position].sources.append(source)
                } else {
                    splits.append((manifest, [source]))
                }
            }
            let lines = splits.map { manifest, sources in
                "  \(manifest.count) shards of \(manifest.input ?? "arguments") (\(manifest.inputLines) URL lines"
                    + "\(manifest.complete ? "" : " read before it stopped"), digest \(manifest.inputDigest)): "
                    + sources.joined(separator: " ")
            }
            throw MergeError(
                .mixedSplits,
                "these files are not shards of one split of one input:\n" + lines.joined(separator: "\n"))
        }
        return MergeReport.Split(
            count: first.count, inputLines: whole?.inputLines, input: (whole ?? first).input,
            inputDigest: whole?.inputDigest)
    }

    /// Merges every input into `sink`, in buffers of about 1 MiB.
    /// - Throws: ``MergeError`` when the shards do not belong together, a file cannot be read or
    ///   holds something else than records, or the output cannot be written. Missing records are
    ///   no error: the report says which and how to fetch them.
    public func run(into sink: @escaping MergeSink) throws(MergeError) -> MergeReport {
        var report = MergeReport()
        report.split = try self.split()
        report.files = self.inputs.count
        report.absent = self.absent
        report.unverified = self.inputs.filter { $0.manifest == nil }.map(\.path)
        let sorter = RecordSorter(temporaryDirectory: self.temporaryDirectory)
        var inOrder: [Int] = []
        var toSort: [Int] = []
        for (origin, input) in self.inputs.enumerated() {
            let sorted =
                if let manifest = input.manifest { manifest.order != "completion" } else {
                    try sorter.isSorted(path: input.path)
                }
            if sorted {
                inOrder.append(origin)
            } else {
                toSort.append(origin)
            }
        }
        // Regular files are mapped; others (pipes) get 16 MiB of read buffers in all, 64 KiB to
        // 1 MiB each, so memory stays flat however many shards there are.
        let bufferSize = min(1 << 20, max(1 << 16, (16 << 20) / max(1, inOrder.count)))
        var sources: [RecordMerger.Input] = inOrder.map { origin in
            .file(path: self.inputs[origin].path, origin: origin, bufferSize: bufferSize)
        }
        var cutOffWhileSorting: [Int: Int?] = [:]
        for origin in toSort {
            let runs = try sorter.sortedRuns(path: self.inputs[origin].path, origin: origin)
            sources += runs.sources
            report.sorted.append(self.inputs[origin].path)
            if runs.cutOff.present {
                cutOffWhileSorting[origin] = runs.cutOff.index
            }
        }
        let outcome = try RecordMerger(inputs: sources, sink: sink, total: report.split?.inputLines).run()
        report.records = outcome.records
        report.missing = outcome.missing
        report.gaps = outcome.gaps
        report.duplicates = outcome.duplicates
        report.lastIndex = outcome.lastIndex
        let cutOff = outcome.cutOff.merging(cutOffWhileSorting) { first, _ in first }
        for (origin, index) in cutOff {
            report.cutOff[self.inputs[origin].path] = index
        }
        for (origin, input) in self.inputs.enumerated() {
            let read = outcome.recordsByOrigin[origin] ?? 0
            if let manifest = input.manifest, read > manifest.records {
                throw MergeError(
                    .statsMismatch,
                    "\(input.path) holds \(read) records but its stats (\(input.statsPath ?? "?")) say "
                        + "\(manifest.records) were written: the stats describe another run")
            }
        }
        if let split = report.split, report.missing > 0 || split.inputLines == nil {
            report.shortfalls = self.shortfalls(of: split, recordsByOrigin: outcome.recordsByOrigin, cutOff: cutOff)
        }
        return report
    }

    /// The shards that did not deliver, why, and how to run each again.
    private func shortfalls(of split: MergeReport.Split, recordsByOrigin: [Int: Int], cutOff: [Int: Int?])
        -> [MergeReport.Shortfall]
    {
        let siblings =
            self.inputs.compactMap { input in
                input.manifest.map { ShardRerun.Known(manifest: $0, recordsPath: input.path) }
            }
            + self.orphans.map { ShardRerun.Known(manifest: $0.manifest, recordsPath: nil) }
        // Shards nothing is known of hold the lines the known ones do not; none when that is 0.
        var linesByShard: [Int: Int] = [:]
        for known in siblings {
            linesByShard[known.manifest.index] = known.manifest.lines
        }
        let unaccounted = split.inputLines.map { $0 - linesByShard.values.reduce(0, +) } ?? 1
        var shortfalls: [MergeReport.Shortfall] = []
        for index in 0..<split.count {
            let own = self.inputs.enumerated().filter { $0.element.manifest?.index == index }
            let delivered = own.contains { origin, input in
                guard let manifest = input.manifest else {
                    return false
                }
                return manifest.complete && recordsByOrigin[origin, default: 0] == manifest.records
                    && cutOff[origin] == nil
            }
            if delivered {
                continue
            }
            let reason: String
            var known: ShardRerun.Known?
            if let (origin, input) = own.first, let manifest = input.manifest {
                let read = recordsByOrigin[origin, default: 0]
                known = ShardRerun.Known(manifest: manifest, recordsPath: input.path)
                if !manifest.complete {
                    reason = "\(input.path): its run was stopped after \(manifest.records) records"
                } else if read < manifest.records {
                    reason = "\(input.path) holds \(read) records, its stats say \(manifest.records) were written"
                } else {
                    reason = "\(input.path) ends in a cut-off record"
                }
            } else if let orphan = self.orphans.first(where: { $0.manifest.index == index }) {
                known = ShardRerun.Known(manifest: orphan.manifest, recordsPath: nil)
                reason =
                    orphan.manifest.complete
                    ? "its records file (\(orphan.manifest.output ?? "standard output")) was not given to merge; "
                        + "give it, or run the shard again"
                    : "stats \(orphan.statsPath): its run was stopped after \(orphan.manifest.records) records"
            } else {
                guard unaccounted > 0 else {
                    continue
                }
                reason =
                    self.inputs.contains(where: { $0.manifest == nil })
                    ? "no stats file says it ran (one of the files without stats may hold some of it)"
                    : "no records or stats file"
            }
            let command = ShardRerun.command(
                index: index, count: split.count, own: known, siblings: siblings,
                currentDirectory: self.currentDirectory)
            shortfalls.append(MergeReport.Shortfall(index: index, reason: reason, command: command))
        }
        return shortfalls
    }
}
