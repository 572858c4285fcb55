import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A folder that bodies are saved in, open for the whole run, and the temporary files in it.
///
/// Every body is first written to a temporary file, `.batchfetch-PID-N.partial`, created
/// exclusively (`O_EXCL`) and never through a symbolic link (`O_NOFOLLOW`), then renamed to its
/// final name only once all of it is there: a final name holds a whole body or nothing. Both the
/// engine thread (which streams bodies into temporaries, see ``Engine/Configuration/bodyFolder``)
/// and the consumer (``BodyFileStore``) make temporaries here; they share one counter, so their
/// names never collide.
///
/// Threading: any thread; the descriptor is fixed and the counter atomic.
public final class BodyFolder: Sendable {
    /// The folder's path as given.
    public let path: String
    let descriptor: Int32
    private let process = getpid()
    private let temporaries = Atomic<Int>(0)

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
    }

    deinit {
        close(self.descriptor)
    }

    /// Creates a new, empty temporary file for writing.
    /// - Returns: its descriptor and name, or `nil` with `errno` set.
    func createTemporary() -> (descriptor: Int32, name: String)? {
        let number = self.temporaries.wrappingAdd(1, ordering: .relaxed).newValue
        let name = ".batchfetch-\(self.process)-\(number).partial"
        let descriptor = openat(
            self.descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? (descriptor, name) : nil
    }

    /// Removes the file `name` (a temporary), ignoring a failure: nothing else can be done about it.
    func remove(_ name: String) {
        unlinkat(self.descriptor, name, 0)
    }

    /// Renames the temporary `temporary` to `name`, replacing what `name` held.
    /// - Throws: ``FetchError/Kind/fileWrite``; the temporary is removed then.
    func rename(_ temporary: String, to name: String) throws(FetchError) {
        guard renameat(self.descriptor, temporary, self.descriptor, name) == 0 else {
            let error = Self.failure(.fileWrite, "cannot rename the finished file to \(self.path(of: name))")
            self.remove(temporary)
            throw error
        }
    }

    /// The path of the file `name` here: the folder as given, `/`, the name.
    func path(of name: String) -> String {
        BodyFileStore.path(of: name, in: self.path)
    }

    static func failure(_ kind: FetchError.Kind, _ what: String) -> FetchError {
        FetchError(kind: kind, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
