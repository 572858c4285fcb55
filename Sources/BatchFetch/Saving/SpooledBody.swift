internal import CCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A whole body the engine streamed into a temporary file of a ``BodyFolder`` as it arrived
/// (``Engine/Configuration/bodyFolder``), with its size, waiting for a name.
///
/// ``BodyFileStore/save(_:index:url:)`` gives it its final name. One the consumer never names (a
/// status that is not ok, a retried attempt, a batch given up) is removed when the last result
/// holding it goes, so no temporary outlives its run but after a kill. The results of identical
/// requests share one transfer, and so one spooled body: the first name it gets is a rename, later
/// ones are copies of the file under that name.
///
/// Its SHA-256 is taken by whoever names it (``sha256()``), from the file, not by the engine
/// thread as bytes arrive: hashing was 37% of that thread's time on W6, the thread every transfer
/// waits on, while reading the file back from the page cache costs a tenth of hashing it.
///
/// Threading: any thread.
public final class SpooledBody: Sendable {
    /// The body's size in bytes.
    public let bytes: Int
    let folder: BodyFolder
    /// The temporary's name until the body is named; then the final name.
    private let state: Mutex<State>
    /// The body's SHA-256 once taken.
    private let digest = Mutex<String?>(nil)

    private enum State {
        /// In its temporary file, unnamed.
        case temporary(String)
        /// Renamed to this name (in the folder).
        case named(String)
        /// Gone: naming it failed, and the temporary was removed.
        case lost
    }

    init(folder: BodyFolder, temporary: String, bytes: Int) {
        self.folder = folder
        self.bytes = bytes
        self.state = Mutex(.temporary(temporary))
    }

    deinit {
        self.state.withLock { state in
            if case .temporary(let name) = state {
                self.folder.remove(name)
            }
        }
    }

    /// Gives the body the final name `name` in its folder: renames its temporary, or, when an
    /// earlier call named it already, copies that file.
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be renamed or copied.
    func name(_ name: String) throws(FetchError) {
        try self.state.withLock { (state: inout State) throws(FetchError) in
            switch state {
            case .temporary(let temporary):
                state = .lost
                try self.folder.rename(temporary, to: name)
                state = .named(name)
            case .named(let earlier):
                if earlier != name {
                    try self.copy(earlier, to: name)
                }
            case .lost:
                throw FetchError(kind: .fileWrite, message: "the body's file could not be kept")
            }
        }
    }

    /// The body's SHA-256, lower-case hex, read from its file (once; later calls give the same).
    /// - Throws: ``FetchError/Kind/fileWrite`` when the file cannot be read, or no longer holds
    ///   ``bytes`` bytes.
    public func sha256() throws(FetchError) -> String {
        try self.digest.withLock { (digest: inout String?) throws(FetchError) -> String in
            if let digest {
                return digest
            }
            let name: String? = self.state.withLock { state in
                switch state {
                case .temporary(let name), .named(let name): name
                case .lost: nil
                }
            }
            guard let name else {
                throw FetchError(kind: .fileWrite, message: "the body's file could not be kept")
            }
            let taken = try self.hash(self.folder.path(of: name), name: name)
            digest = taken
            return taken
        }
    }

    /// Hashes the folder's file `name`, which must hold ``bytes`` bytes.
    private func hash(_ path: String, name: String) throws(FetchError) -> String {
        let input = openat(self.folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else {
            throw BodyFolder.failure(.fileWrite, "cannot read \(path)")
        }
        defer { close(input) }
        var state = ccrypto_sha256_state()
        _ = ccrypto_sha256_start(&state)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let count = read(input, chunk.baseAddress, chunk.count)
            if count < 0 && errno == EINTR {
                continue
            }
            guard count >= 0 else {
                throw BodyFolder.failure(.fileWrite, "cannot read \(path)")
            }
            guard count > 0 else {
                break
            }
            _ = ccrypto_sha256_add(&state, chunk.baseAddress, count)
            total += count
        }
        guard total == self.bytes else {
            throw FetchError(
                kind: .fileWrite, message: "\(path) holds \(total) bytes where \(self.bytes) were written")
        }
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { ccrypto_sha256_finish(&state, $0.baseAddress) }
        return BodyFileStore.hex(digest)
    }

    /// Copies the folder's file `source` to `name`, through a temporary like every other file.
    private func copy(_ source: String, to name: String) throws(FetchError) {
        let input = openat(self.folder.descriptor, source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else {
            throw BodyFolder.failure(.fileWrite, "cannot read \(self.folder.path(of: source))")
        }
        defer { close(input) }
        guard let (output, temporary) = self.folder.createTemporary() else {
            throw BodyFolder.failure(.fileWrite, "cannot create a file in \(self.folder.path)")
        }
        // Rare (a URL repeated in one batch), so a plain read and write loop.
        var copied = 0
        var complete = true
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while complete && copied < self.bytes {
            let count = read(input, chunk.baseAddress, chunk.count)
            if count < 0 && errno == EINTR {
                continue
            }
            guard count > 0 else {
                break
            }
            complete = BodyFileStore.writeAll(UnsafeRawBufferPointer(rebasing: chunk[..<count]), to: output)
            copied += count
        }
        let closed = close(output) == 0
        guard complete && copied == self.bytes && closed else {
            let error = BodyFolder.failure(.fileWrite, "cannot copy to \(self.folder.path(of: name))")
            self.folder.remove(temporary)
            throw error
        }
        try self.folder.rename(temporary, to: name)
    }
}
