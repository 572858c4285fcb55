import BatchFetch

extension MergeReport {
    /// The report for a person: one line of totals, then what is missing and how to fetch it.
    /// Re-run commands are lines of their own, indented by two spaces, ready to copy.
    public var text: String {
        var lines: [String] = []
        let files = "\(self.files) file\(self.files == 1 ? "" : "s")"
        if let split = self.split {
            let input = split.input.map { " of \($0)" } ?? ""
            lines.append(
                "merge: \(self.records) of \(split.inputLines.map(String.init) ?? "?") records from \(files) "
                    + "(\(split.count) shard\(split.count == 1 ? "" : "s")\(input))"
                    + (self.isComplete ? ", all there" : ", \(self.missing) missing"))
        } else {
            lines.append(
                "merge: \(self.records) records from \(files)"
                    + (self.missing > 0 ? ", \(self.missing) missing below index \(self.lastIndex ?? 0)" : ""))
            lines.append(
                "merge: no stats files (X.stats.json beside X.ndjson, or --stats): checked the indices only, "
                    + "not the split; records missing after the highest index cannot be noticed")
        }
        if !self.gaps.isEmpty {
            let shown = self.gaps.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            let more = self.missing > self.gaps.reduce(0) { $0 + $1.count } ? ", …" : ""
            lines.append("merge: missing indices: " + shown.joined(separator: ", ") + more)
        }
        if self.split != nil && !self.unverified.isEmpty {
            lines.append("merge: no stats file, indices checked only: " + self.unverified.joined(separator: " "))
        }
        for path in self.absent {
            lines.append("merge: \(path) does not exist")
        }
        for (path, index) in self.cutOff.sorted(by: { $0.key < $1.key }) {
            let which = index.map { " (index \($0))" } ?? ""
            lines.append("merge: \(path) ends in a cut-off record\(which), left out: its writer was killed")
        }
        if !self.sorted.isEmpty {
            lines.append(
                "merge: sorted by index first (written in completion order): " + self.sorted.joined(separator: " "))
        }
        if self.duplicates > 0 {
            lines.append("merge: \(self.duplicates) duplicate records left out (same result as the first)")
        }
        for shortfall in self.shortfalls {
            lines.append(
                "merge: shard \(shortfall.index)/\(self.split?.count ?? 0) missing: \(shortfall.reason); run it again with"
            )
            lines.append("  " + shortfall.command)
        }
        if !self.isComplete && self.split != nil && self.shortfalls.isEmpty {
            lines.append(
                "merge: every shard's stats say it is complete, yet records are missing: were URLs left out with "
                    + "--skip-existing?")
        }
        if self.shortfalls.contains(where: { $0.command.contains("***") }) {
            lines.append("merge: values shown as *** were not stored in the stats: put them back before running")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
