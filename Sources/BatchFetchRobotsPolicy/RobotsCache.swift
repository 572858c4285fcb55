import BatchFetch
import Foundation

/// robots.txt files kept between runs under `--cache DIR` (in `DIR/robots/`, one small JSON file per
/// origin): used for 24 hours (RFC 9309 §2.4), and up to 30 days old when the origin cannot be
/// reached. Only answers that say something are kept: 2xx (the file) and 4xx but 429 (no file:
/// everything allowed).
///
/// A file that cannot be read or written is as if there were none: the cache never fails a run.
/// Threading: the engine thread calls it; every call stands alone (files written to a temporary
/// name, then renamed).
struct RobotsCache: Sendable {
    typealias Mode = RobotsCacheMode

    struct Entry: Codable {
        let origin: String
        let status: Int
        /// When it was fetched, in seconds since 1970.
        let fetchedAt: Double
        let body: Data
    }

    static let freshFor: Double = 24 * 3600
    static let usableFor: Double = 30 * 24 * 3600

    let folder: URL
    let mode: Mode

    init(directory: String, mode: Mode) {
        self.folder = URL(fileURLWithPath: directory).appendingPathComponent("robots")
        self.mode = mode
    }

    /// `origin`'s kept file when it may be used without asking (fresh, or offline and not too old).
    func answer(for origin: String, now: Double = Date().timeIntervalSince1970) -> Entry? {
        guard self.mode != .refresh, let entry = self.load(origin) else {
            return nil
        }
        let age = now - entry.fetchedAt
        let limit = self.mode == .only ? Self.usableFor : Self.freshFor
        return age >= 0 && age <= limit ? entry : nil
    }

    /// `origin`'s kept file when the origin cannot be reached: up to 30 days old.
    func fallback(for origin: String, now: Double = Date().timeIntervalSince1970) -> Entry? {
        guard let entry = self.load(origin), now - entry.fetchedAt <= Self.usableFor else {
            return nil
        }
        return entry
    }

    /// Keeps an answer of `origin`'s robots.txt.
    func store(_ origin: String, status: Int, body: Data, now: Double = Date().timeIntervalSince1970) {
        let entry = Entry(origin: origin, status: status, fetchedAt: now, body: body)
        guard let data = try? JSONEncoder().encode(entry) else {
            return
        }
        let file = self.file(for: origin)
        let temporary = file.appendingPathExtension("partial-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
            try data.write(to: temporary)
        } catch {
            return
        }
        // rename(2): the old file, if any, is replaced whole; a reader sees one or the other.
        if rename(temporary.path, file.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    private func load(_ origin: String) -> Entry? {
        guard let data = try? Data(contentsOf: self.file(for: origin)),
            let entry = try? JSONDecoder().decode(Entry.self, from: data), entry.origin == origin
        else {
            return nil
        }
        return entry
    }

    private func file(for origin: String) -> URL {
        self.folder.appendingPathComponent(Digest.sha256(Data(origin.utf8)) + ".json")
    }
}

/// How the cache is used (`--cache-mode`).
public enum RobotsCacheMode: Sendable {
    /// A file up to 24 hours old answers; older ones are fetched again.
    case use
    /// Always fetched again; a kept file serves only when the origin is unreachable.
    case refresh
    /// Offline: a kept file up to 30 days old answers, whatever its age; nothing is fetched.
    case only
}
