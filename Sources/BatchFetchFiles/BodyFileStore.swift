import BatchFetch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Saves response bodies as files in one folder, each under a name from a ``FileNameTemplate``.
///
/// A body is written to a temporary file in the folder (see ``BodyFolder``) and renamed to its
/// final name only once all of it is written, so a kill, a full disk or a failed write never
/// leaves a partial file under a final name: a final name holds a whole body or nothing. A body
/// the engine streamed to a file (``SpooledBody``) is only renamed here. Names are made by the
/// template from the URL and index, never taken from the server as they are, and hold no `/`, so
/// every file lands directly in the folder. Renaming replaces what the name held, a symbolic link
/// included (the link, not what it points to).
///
/// Threading: one thread at a time (the consumer of a batch's results).
public final class BodyFileStore {
    /// A body saved (or found saved by an earlier run).
    public struct Saved: Sendable, Hashable {
        /// The file's path: the folder as given, `/`, the name.
        public let path: String
        /// The body's SHA-256, lower-case hex.
        public let sha256: String
        /// The body's size in bytes.
        public let bytes: Int
    }

    /// The folder; give it to ``Engine/Configuration/bodyFolder`` to have bodies streamed there.
    public let folder: BodyFolder
    public let template: FileNameTemplate
    /// Names written in this run and by which record, to refuse a second body under one name.
    private var written: [String: Int] = [:]

    /// The folder's path as given.
    public var directory: String { self.folder.path }

    /// Opens (creating it if needed) the folder bodies are saved in.
    /// - Throws: ``FetchError/Kind/invalidConfiguration`` when it cannot be created or opened.
    public init(directory: String, template: FileNameTemplate = .standard) throws(FetchError) {
        self.folder = try BodyFolder(path: directory)
        self.template = template
    }

    /// Writes `body` (the result of record `index`, fetched from `url`) under its name.
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be written in full or renamed, or
    ///   when another record's body already took its name in this run (the same body under a
    ///   `{sha256}` name is no conflict).
    public func save(_ body: Data, index: Int, url: String) throws(FetchError) -> Saved {
        let digest = Self.sha256(body)
        let name = try self.claim(index: index, url: url, sha256: digest)
        let saved = try self.save(body, named: name, sha256: digest)
        self.written[name] = index
        return saved
    }

    /// Names `body`, streamed to a file by the engine for record `index` of `url`, as
    /// ``save(_:index:url:)`` names a body in memory.
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be renamed (or copied, for the
    ///   second record of one transfer), or when another record's body took its name.
    public func save(_ body: SpooledBody, index: Int, url: String) throws(FetchError) -> Saved {
        let digest = try body.sha256()
        let name = try self.claim(index: index, url: url, sha256: digest)
        try body.name(name)
        self.written[name] = index
        return Saved(path: self.folder.path(of: name), sha256: digest, bytes: body.bytes)
    }

    /// Writes `body` under `name`, made safe as template names are (see ``FileNameTemplate``).
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be written in full or renamed.
    public func save(_ body: Data, named name: String) throws(FetchError) -> Saved {
        try self.save(body, named: FileNameTemplate.safe(name), sha256: Self.sha256(body))
    }

    /// The name of record `index`'s body. - Throws: ``FetchError/Kind/fileWrite`` when another
    /// record's body took it in this run.
    private func claim(index: Int, url: String, sha256 digest: String) throws(FetchError) -> String {
        let name = self.template.name(index: index, url: url, sha256: digest)
        if let earlier = self.written[name], earlier != index, !self.template.dependsOnContent {
            throw FetchError(
                kind: .fileWrite,
                message: "the file name '\(name)' was already written for record \(earlier); "
                    + "use a template with {index} or {sha256} to tell them apart")
        }
        return name
    }

    private func save(_ body: Data, named name: String, sha256 digest: String) throws(FetchError) -> Saved {
        guard let (descriptor, temporary) = self.folder.createTemporary() else {
            throw BodyFolder.failure(.fileWrite, "cannot create a file in \(self.directory)")
        }
        let complete = body.withUnsafeBytes { BodyFolder.writeAll($0, to: descriptor) }
        let closed = close(descriptor) == 0
        guard complete && closed else {
            let error = BodyFolder.failure(.fileWrite, "cannot write \(self.folder.path(of: name))")
            self.folder.remove(temporary)
            throw error
        }
        try self.folder.rename(temporary, to: name)
        return Saved(path: self.folder.path(of: name), sha256: digest, bytes: body.count)
    }

    /// Whether an earlier run saved record `index` of `url` in `directory`: its name is there as a
    /// regular file (only finished files ever have their names). Always `false` when the name
    /// depends on the body (`{sha256}`), which is not known before fetching it.
    public static func isSaved(in directory: String, template: FileNameTemplate, index: Int, url: String) -> Bool {
        guard !template.dependsOnContent else {
            return false
        }
        return Self.isSaved(in: directory, named: template.name(index: index, url: url, sha256: ""))
    }

    /// Whether a file named `name` (made safe) is in `directory` as a regular file.
    public static func isSaved(in directory: String, named name: String) -> Bool {
        let name = FileNameTemplate.safe(name)
        var info = stat()
        return fstatat(AT_FDCWD, Self.path(of: name, in: directory), &info, AT_SYMLINK_NOFOLLOW) == 0
            && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The SHA-256 of `body`, lower-case hex.
    public static func sha256(_ body: Data) -> String {
        Digest.sha256(body)
    }

    /// The path of the file `name` in `directory`: the folder as given, `/`, the name.
    public static func path(of name: String, in directory: String) -> String {
        BodyFolder.path(of: name, in: directory)
    }
}
