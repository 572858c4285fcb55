internal import CCrypto
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Saves response bodies as files in one folder, each under a name from a ``FileNameTemplate``.
///
/// A body is written to a temporary file in the folder (`.batchfetch-PID-N.partial`, created
/// exclusively and never through a symbolic link) and renamed to its final name only once all of
/// it is written, so a kill, a full disk or a failed write never leaves a partial file under a
/// final name: a final name holds a whole body or nothing. Names are made by the template from the
/// URL and index, never taken from the server as they are, and hold no `/`, so every file lands
/// directly in the folder. Renaming replaces what the name held, a symbolic link included (the
/// link, not what it points to).
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

    public let directory: String
    public let template: FileNameTemplate
    private let directoryDescriptor: Int32
    private var temporaries = 0
    /// Names written in this run and by which record, to refuse a second body under one name.
    private var written: [String: Int] = [:]

    /// Opens (creating it if needed) the folder bodies are saved in.
    /// - Throws: ``FetchError/Kind/invalidConfiguration`` when it cannot be created or opened.
    public init(directory: String, template: FileNameTemplate = .standard) throws(FetchError) {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw Self.failure(.invalidConfiguration, "cannot create the folder \(directory)")
        }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.failure(.invalidConfiguration, "cannot open the folder \(directory)")
        }
        self.directory = directory
        self.template = template
        self.directoryDescriptor = descriptor
    }

    deinit {
        close(self.directoryDescriptor)
    }

    /// Writes `body` (the result of record `index`, fetched from `url`) under its name.
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be written in full or renamed, or
    ///   when another record's body already took its name in this run (the same body under a
    ///   `{sha256}` name is no conflict).
    public func save(_ body: Data, index: Int, url: String) throws(FetchError) -> Saved {
        let digest = Self.sha256(body)
        let name = self.template.name(index: index, url: url, sha256: digest)
        if let earlier = self.written[name], earlier != index, !self.template.dependsOnContent {
            throw FetchError(
                kind: .fileWrite,
                message: "the file name '\(name)' was already written for record \(earlier); "
                    + "use a template with {index} or {sha256} to tell them apart")
        }
        let saved = try self.save(body, named: name, sha256: digest)
        self.written[name] = index
        return saved
    }

    /// Writes `body` under `name`, made safe as template names are (see ``FileNameTemplate``).
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be written in full or renamed.
    public func save(_ body: Data, named name: String) throws(FetchError) -> Saved {
        try self.save(body, named: FileNameTemplate.safe(name), sha256: Self.sha256(body))
    }

    private func save(_ body: Data, named name: String, sha256 digest: String) throws(FetchError) -> Saved {
        self.temporaries += 1
        let temporary = ".batchfetch-\(getpid())-\(self.temporaries).partial"
        let descriptor = openat(
            self.directoryDescriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Self.failure(.fileWrite, "cannot create a file in \(self.directory)")
        }
        let complete = body.withUnsafeBytes { Self.writeAll($0, to: descriptor) }
        let closed = close(descriptor) == 0
        guard complete && closed else {
            let error = Self.failure(.fileWrite, "cannot write \(self.path(name))")
            unlinkat(self.directoryDescriptor, temporary, 0)
            throw error
        }
        guard renameat(self.directoryDescriptor, temporary, self.directoryDescriptor, name) == 0 else {
            let error = Self.failure(.fileWrite, "cannot rename the finished file to \(self.path(name))")
            unlinkat(self.directoryDescriptor, temporary, 0)
            throw error
        }
        return Saved(path: self.path(name), sha256: digest, bytes: body.count)
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
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = body.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { ccrypto_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        // libcrypto fails only without memory for its context; an empty digest then says so.
        guard ok == 1 else {
            return ""
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private func path(_ name: String) -> String {
        Self.path(of: name, in: self.directory)
    }

    /// The path of the file `name` in `directory`: the folder as given, `/`, the name.
    public static func path(of name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        guard let base = bytes.baseAddress else {
            return true
        }
        var offset = 0
        while offset < bytes.count {
            let wrote = write(descriptor, base + offset, bytes.count - offset)
            if wrote < 0 {
                if errno == EINTR {
                    continue
                }
                return false
            }
            offset += wrote
        }
        return true
    }

    private static func failure(_ kind: FetchError.Kind, _ what: String) -> FetchError {
        FetchError(kind: kind, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
