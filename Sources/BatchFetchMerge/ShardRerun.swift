import BatchFetch
import Foundation

/// The command that runs one shard again, made from what the stats files recorded: the shard's
/// own command when its run was interrupted, else a sibling's with `--shard`, `-o` and `--stats`
/// changed to this shard's (the sibling's number in a file name, like `shard.5.ndjson`, becomes
/// this one's).
enum ShardRerun {
    /// A shard run that stats describe, with the records file `merge` was given for it, if any.
    struct Known {
        let manifest: ShardManifest
        let recordsPath: String?
    }

    /// A shell command line that fetches shard `index` of `count`: `cd DIR && ` first when the
    /// run's folder is not `currentDirectory`.
    static func command(index: Int, count: Int, own: Known?, siblings: [Known], currentDirectory: String) -> String {
        let shard = "\(index)/\(count)"
        if let own {
            let words = Self.replacingShard(in: own.manifest.command, with: shard)
            let redirect = Self.hasOption(Self.outputNames, in: words) ? nil : own.manifest.output ?? own.recordsPath
            return Self.shellLine(
                words, redirect: redirect, directory: own.manifest.directory, currentDirectory: currentDirectory)
        }
        let ordered = siblings.sorted {
            ($0.manifest.complete ? 0 : 1, $0.manifest.index) < ($1.manifest.complete ? 0 : 1, $1.manifest.index)
        }
        if let (words, redirect, directory) = ordered.lazy.compactMap({ Self.rewrite($0, to: index, shard: shard) })
            .first
        {
            return Self.shellLine(words, redirect: redirect, directory: directory, currentDirectory: currentDirectory)
        }
        let base = ordered.first
        let words = base.map { Self.replacingShard(in: $0.manifest.command, with: shard) }
        return Self.shellLine(
            words ?? ["batchfetch", "fetch", "--shard", shard], redirect: nil, directory: base?.manifest.directory,
            currentDirectory: currentDirectory) + "  # give this shard's records and stats files their own names"
    }

    private static let outputNames: Set<String> = ["-o", "--output"]
    private static let statsNames: Set<String> = ["--stats"]

    /// A sibling's command for shard `index` (words, a file standard output goes to, folder), or
    /// `nil` when its file names do not show its shard number exactly once.
    private static func rewrite(_ sibling: Known, to index: Int, shard: String) -> ([String], String?, String)? {
        let from = sibling.manifest.index
        var words = Self.replacingShard(in: sibling.manifest.command, with: shard)
        for names in [Self.outputNames, Self.statsNames] {
            guard Self.rewriteValues(of: names, in: &words, { Self.renumbered($0, from: from, to: index) }) else {
                return nil
            }
        }
        guard !Self.hasOption(Self.outputNames, in: words) else {
            return (words, nil, sibling.manifest.directory)
        }
        guard let path = sibling.manifest.output ?? sibling.recordsPath,
            let renamed = Self.renumbered(path, from: from, to: index)
        else {
            return nil
        }
        return (words, renamed, sibling.manifest.directory)
    }

    static func replacingShard(in command: [String], with shard: String) -> [String] {
        var words = command
        _ = Self.rewriteValues(of: ["--shard"], in: &words) { _ in shard }
        return words
    }

    private static func hasOption(_ names: Set<String>, in words: [String]) -> Bool {
        words.dropFirst().contains { word in
            names.contains(word) || names.contains { word.hasPrefix($0 + "=") }
                || (names.contains("-o") && word.hasPrefix("-o") && !word.hasPrefix("--"))
        }
    }

    /// Replaces the value of every option named in `names` (`--name VALUE`, `--name=VALUE`, and
    /// `-oVALUE` for `-o`). - Returns: `false` when `transform` gave `nil` for one.
    private static func rewriteValues(
        of names: Set<String>, in words: inout [String], _ transform: (String) -> String?
    ) -> Bool {
        var position = 1
        while position < words.count {
            let word = words[position]
            if names.contains(word), position + 1 < words.count {
                guard let value = transform(words[position + 1]) else {
                    return false
                }
                words[position + 1] = value
                position += 2
                continue
            }
            for name in names where name.hasPrefix("--") && word.hasPrefix(name + "=") {
                guard let value = transform(String(word.dropFirst(name.count + 1))) else {
                    return false
                }
                words[position] = name + "=" + value
            }
            if names.contains("-o") && word.hasPrefix("-o") && word.count > 2 && !word.hasPrefix("--") {
                guard let value = transform(String(word.dropFirst(2))) else {
                    return false
                }
                words[position] = "-o" + value
            }
            position += 1
        }
        return true
    }

    /// `path` with the one run of digits in its file name that reads `from` changed to `to`, or
    /// `nil` when there is no such run or more than one.
    static func renumbered(_ path: String, from: Int, to: Int) -> String? {
        let bytes = Array(path.utf8)
        let nameStart = (bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
        let isDigit: (UInt8) -> Bool = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        var found: Range<Int>?
        var position = nameStart
        while position < bytes.count {
            guard isDigit(bytes[position]) else {
                position += 1
                continue
            }
            let start = position
            while position < bytes.count && isDigit(bytes[position]) {
                position += 1
            }
            if String(decoding: bytes[start..<position], as: UTF8.self) == String(from) {
                guard found == nil else {
                    return nil
                }
                found = start..<position
            }
        }
        guard let found else {
            return nil
        }
        let renamed = bytes[..<found.lowerBound] + Array(String(to).utf8) + bytes[found.upperBound...]
        return String(decoding: renamed, as: UTF8.self)
    }

    private static func shellLine(
        _ words: [String], redirect: String?, directory: String?, currentDirectory: String
    ) -> String {
        var line = ""
        if let directory, directory != currentDirectory {
            line = "cd \(Self.quoted(directory)) && "
        }
        line += words.map(Self.quoted).joined(separator: " ")
        if let redirect {
            line += " > " + Self.quoted(redirect)
        }
        return line
    }

    /// `word` as one shell word: as it is when it holds only safe characters, else in single quotes.
    static func quoted(_ word: String) -> String {
        let safe = word.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "_@%+=:,./-".utf8.contains(byte)
        }
        if safe && !word.isEmpty {
            return word
        }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
