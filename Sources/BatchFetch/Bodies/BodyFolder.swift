internal import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A folder that bodies are saved in, open for the whole run, and the temporary files in it.
///
/// Every body is first written to a temporary file, `.batchfetch-PID-N.partial`, created
/// exclusively (`O_EXCL`) and never through a symbolic link (`O_NOFOLLOW`), then renamed to its
/// final name only once all of it is there: a final name holds a whole body or nothing. Bodies the
/// engine streams go, where the file system allows it, into unnamed files (`O_TMPFILE`) that
/// `linkat` names once whole: a kill leaves nothing of them, and on ext4 it is cheaper than
/// creating and renaming a named one. Both the engine thread (which streams bodies into
/// temporaries, see ``Engine/Configuration/bodyFolder``) and the consumer (the module
/// `BatchFetchFiles`' `BodyFileStore`) make temporaries here; they share one counter, so their
/// names never collide.
///
/// Threading: any thread; the descriptor is fixed and the counter atomic.
public final class BodyFolder: Sendable {
    /// The folder's path as given.
    public let path: String
    let descriptor: Int32
    private let process = getpid()
    private let temporaries = Atomic<Int>(0)
    /// Whether unnamed temporaries work here: `O_TMPFILE` on this file system, and
    /// `/proc/self/fd`, through which `linkat` names them.
    private let namesUnnamedFiles: Bool
    /// Unnamed temporaries open now: each holds a descriptor until it is named or dropped.
    private let openUnnamed = Atomic<Int>(0)
    /// At most this many unnamed temporaries at once (bodies waiting for their turn in input
    /// order hold theirs); past it, bodies get named ones, which close when written. A quarter of
    /// the descriptor limit, so connections never run short.
    private let unnamedLimit: Int

    /// Opens (creating it if needed) the folder.
    /// - Throws: ``FetchError/Kind/invalidConfiguration`` when it cannot be created or opened.
    public init(path: String) throws(FetchError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw Self.failure(.invalidConfiguration, "cannot create the folder \(path)")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.failure(.invalidConfiguration, "cannot open the folder \(path)")
        }
        self.path = path
        self.descriptor = descriptor
        let probe = clinux_open_unnamed(descriptor, 0o644)
        self.namesUnnamedFiles = probe >= 0 && access("/proc/self/fd/\(probe)", F_OK) == 0
        if probe >= 0 {
            close(probe)
        }
        var limit = rlimit()
        self.unnamedLimit =
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(min(limit.rlim_cur / 4, 1024)) : 64
    }

    deinit {
        close(self.descriptor)
    }

    /// Creates a new, empty temporary file for writing.
    /// - Returns: its descriptor and name, or `nil` with `errno` set.
    package func createTemporary() -> (descriptor: Int32, name: String)? {
        let number = self.temporaries.wrappingAdd(1, ordering: .relaxed).newValue
        let name = ".batchfetch-\(self.process)-\(number).partial"
        let descriptor = openat(
            self.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? (descriptor, name) : nil
    }

    /// A new, empty file for a body streamed into it: unnamed while there are descriptors to spare
    /// and the file system allows it, else a named temporary.
    /// - Returns: its descriptor and, for a named one, its name; `nil` with `errno` set.
    func createSpoolFile() -> (descriptor: Int32, name: String?)? {
        if self.namesUnnamedFiles {
            if self.openUnnamed.wrappingAdd(1, ordering: .relaxed).newValue <= self.unnamedLimit {
                let descriptor = clinux_open_unnamed(self.descriptor, 0o644)
                if descriptor >= 0 {
                    return (descriptor, nil)
                }
            }
            self.openUnnamed.wrappingSubtract(1, ordering: .relaxed)
        }
        return self.createTemporary().map { ($0.descriptor, $0.name) }
    }

    /// Closes the unnamed file `descriptor` (from ``createSpoolFile()``), which goes unless named.
    func closeUnnamed(_ descriptor: Int32) {
        close(descriptor)
        self.openUnnamed.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Gives the unnamed file `descriptor` the name `name`, replacing what `name` held; the file
    /// stays open. - Throws: ``FetchError/Kind/fileWrite``.
    func link(_ descriptor: Int32, to name: String) throws(FetchError) {
        let source = "/proc/self/fd/\(descriptor)"
        if linkat(AT_FDCWD, source, self.descriptor, name, AT_SYMLINK_FOLLOW) == 0 {
            return
        }
        // The name holds an earlier file (a re-run): drop it, then link. Between the two the name
        // holds nothing, never part of a body.
        if errno == EEXIST, unlinkat(self.descriptor, name, 0) == 0 || errno == ENOENT,
            linkat(AT_FDCWD, source, self.descriptor, name, AT_SYMLINK_FOLLOW) == 0
        {
            return
        }
        throw Self.failure(.fileWrite, "cannot name the finished file \(self.path(of: name))")
    }

    /// Removes the file `name` (a temporary), ignoring a failure: nothing else can be done about it.
    package func remove(_ name: String) {
        unlinkat(self.descriptor, name, 0)
    }

    /// Renames the temporary `temporary` to `name`, replacing what `name` held.
    /// - Throws: ``FetchError/Kind/fileWrite``; the temporary is removed then.
    package func rename(_ temporary: String, to name: String) throws(FetchError) {
        guard renameat(self.descriptor, temporary, self.descriptor, name) == 0 else {
            let error = Self.failure(.fileWrite, "cannot rename the finished file to \(self.path(of: name))")
            self.remove(temporary)
            throw error
        }
    }

    /// The path of the file `name` here: the folder as given, `/`, the name.
    package func path(of name: String) -> String {
        Self.path(of: name, in: self.path)
    }

    /// The path of the file `name` in `directory`: the folder as given, `/`, the name.
    package static func path(of name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Writes all of `bytes` to `descriptor`, going on after interruptions and short writes.
    /// - Returns: `false` when a write failed (`errno` says why).
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
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

    package static func failure(_ kind: FetchError.Kind, _ what: String) -> FetchError {
        FetchError(kind: kind, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
