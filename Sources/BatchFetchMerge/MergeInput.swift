import BatchFetch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One records file to merge, with the shard manifest of the run that wrote it when its stats
/// file was found.
public struct MergeInput: Sendable, Hashable {
    /// The records file (NDJSON of `fetch`).
    public var path: String
    /// The `shard` object of its stats file.
    public var manifest: ShardManifest?
    /// Where ``manifest`` was read from.
    public var statsPath: String?

    /// Creates an input.
    public init(path: String, manifest: ShardManifest? = nil, statsPath: String? = nil) {
        self.path = path
        self.manifest = manifest
        self.statsPath = statsPath
    }

    /// A stats file whose records file was not among the inputs.
    public struct OrphanStats: Sendable, Hashable {
        public var statsPath: String
        public var manifest: ShardManifest
    }

    /// Pairs records files with stats files: each file in `stats` goes with the records file its
    /// manifest names as `output` (the same file, however the path is spelled), or else the one
    /// its name pairs with (`X.stats.json` with `X.ndjson` or `X`); records files left without
    /// stats take `X.stats.json` from beside them when there is one.
    ///
    /// - Returns: the inputs in the order of `records`, the stats files no input took, and the
    ///   records files that do not exist (a shard that never ran: missing, not unreadable).
    /// - Throws: ``MergeError/Kind/unreadable`` for a stats file that cannot be read or is not a
    ///   shard's (`fetch` ran without `--shard`), or a records file that exists but cannot be read.
    public static func pairing(records: [String], stats: [String]) throws(MergeError) -> (
        inputs: [MergeInput], orphans: [OrphanStats], absent: [String]
    ) {
        var records = records
        var absent: [String] = []
        var identities: [FileIdentity] = []
        for path in records {
            if let identity = FileIdentity(path: path), access(path, R_OK) == 0 {
                identities.append(identity)
            } else if errno == ENOENT {
                absent.append(path)
            } else {
                throw MergeError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        records.removeAll { absent.contains($0) }
        var inputs = records.map { MergeInput(path: $0) }
        var orphans: [OrphanStats] = []
        for statsPath in stats {
            guard let manifest = try Self.manifest(at: statsPath, required: true) else {
                continue
            }
            let byOutput = manifest.output.flatMap { output -> Int? in
                let path = output.hasPrefix("/") ? output : manifest.directory + "/" + output
                return FileIdentity(path: path).flatMap { identities.firstIndex(of: $0) }
            }
            let byName = records.firstIndex { Self.statsPath(for: $0) == statsPath }
            if let position = byOutput ?? byName, inputs[position].manifest == nil {
                inputs[position].manifest = manifest
                inputs[position].statsPath = statsPath
            } else {
                orphans.append(OrphanStats(statsPath: statsPath, manifest: manifest))
            }
        }
        for position in inputs.indices where inputs[position].manifest == nil {
            let statsPath = Self.statsPath(for: inputs[position].path)
            guard !stats.contains(statsPath), access(statsPath, F_OK) == 0 else {
                continue
            }
            inputs[position].manifest = try Self.manifest(at: statsPath, required: false)
            inputs[position].statsPath = inputs[position].manifest == nil ? nil : statsPath
        }
        return (inputs, orphans, absent)
    }

    /// `X.stats.json` for `X.ndjson` (or for `X` without that extension).
    public static func statsPath(for recordsPath: String) -> String {
        (recordsPath.hasSuffix(".ndjson") ? String(recordsPath.dropLast(".ndjson".count)) : recordsPath)
            + ".stats.json"
    }

    private struct StatsFile: Decodable {
        let shard: ShardManifest?
    }

    /// The manifest in a stats file; `nil` for a stats file without one when not `required`.
    private static func manifest(at path: String, required: Bool) throws(MergeError) -> ShardManifest? {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw MergeError(.unreadable, "cannot read \(path): \(error.localizedDescription)")
        }
        let decoded: StatsFile
        do {
            decoded = try JSONDecoder().decode(StatsFile.self, from: data)
        } catch {
            throw MergeError(.unreadable, "\(path) is not a stats file of batchfetch fetch (\(error))")
        }
        if decoded.shard == nil && required {
            throw MergeError(.unreadable, "\(path) is the stats of a fetch run without --shard")
        }
        return decoded.shard
    }
}

/// A file's device and inode: the same file however its path is spelled.
private struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return nil
        }
        self.device = UInt64(status.st_dev)
        self.inode = UInt64(status.st_ino)
    }
}
