internal import CCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A whole body the engine streamed into a temporary file of a ``BodyFolder`` as it arrived
/// (``Engine/Configuration/bodyFolder``), with its size, waiting for a name.
///
/// Its consumer gives it its final name (`BatchFetchFiles`' `BodyFileStore`, for one). One the
/// consumer never names (a status that is not ok, a retried attempt, a batch given up) is removed
/// when the last result holding it goes, so no temporary outlives its run but after a kill. The
/// results of identical requests share one transfer, and so one spooled body: the first name it
/// gets is a rename, later ones are copies of the file under that name.
///
/// Its SHA-256 is taken by whoever names it (``sha256()``), from the file, not by the engine
/// thread as bytes arrive: that thread is the one every transfer waits on, and reading the file
/// back from the page cache costs far less than hashing it.
///
/// Threading: any thread.
public final class SpooledBody: Sendable {
    /// The body's size in bytes.
    public let bytes: Int
    let folder: BodyFolder
    /// The temporary until the body is named; then the final name.
    private let state: Mutex<State>

    /// Where the body was streamed.
    enum File {
        /// A named temporary in the folder.
        case temporary(String)
        /// An unnamed file (`O_TMPFILE`), open on this descriptor until it is named.
        case unnamed(Int32)
    }
    /// The body's SHA-256 once taken.
    private let digest = Mutex<String?>(nil)

    private enum State {
        /// In its temporary file, not named yet.
        case temporary(String)
        /// In an unnamed file, open on this descriptor.
        case unnamed(Int32)
        /// Renamed to this name (in the folder).
        case named(String)
        /// Gone: naming it failed, and the temporary was removed.
        case lost
    }

    init(folder: BodyFolder, file: File, bytes: Int) {
        self.folder = folder
        self.bytes = bytes
        switch file {
        case .temporary(let name): self.state = Mutex(.temporary(name))
        case .unnamed(let descriptor): self.state = Mutex(.unnamed(descriptor))
        }
    }

    deinit {
        self.state.withLock { state in
            switch state {
            case .temporary(let name): self.folder.remove(name)
            case .unnamed(let descriptor): self.folder.closeUnnamed(descriptor)
            case .named, .lost: break
            }
        }
    }

    /// Gives the body the final name `name` in its folder: renames its temporary, or, when an
    /// earlier call named it already, copies that file.
    /// - Throws: ``FetchError/Kind/fileWrite`` when it cannot be renamed or copied.
    package func name(_ name: String) throws(FetchError) {
        try self.state.withLock { (state: inout State) throws(FetchError) in
            switch state {
            case .temporary(let temporary):
                state = .lost
                try self.folder.rename(temporary, to: name)
                state = .named(name)
            case .unnamed(let descriptor):
                state = .lost
                defer { self.folder.closeUnnamed(descriptor) }
                try self.folder.link(descriptor, to: name)
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
            // The descriptor stays valid while the lock is held: naming closes it under the same lock.
            let taken = try self.state.withLock { (state: inout State) throws(FetchError) -> String in
                switch state {
                case .unnamed(let descriptor):
                    return try self.hash(descriptor, path: self.folder.path)
                case .temporary(let name), .named(let name):
                    let input = try self.open(name)
                    defer { close(input) }
                    return try self.hash(input, path: self.folder.path(of: name))
                case .lost:
                    throw FetchError(kind: .fileWrite, message: "the body's file could not be kept")
                }
            }
            digest = taken
            return taken
        }
    }

    /// Hashes the file open on `descriptor` (`path` names it in errors), which must hold ``bytes``
    /// bytes; reads from its start whatever its offset.
    private func hash(_ descriptor: Int32, path: String) throws(FetchError) -> String {
        var state = ccrypto_sha256_state()
        _ = ccrypto_sha256_start(&state)
        let read = Self.read(descriptor) { chunk in
            _ = ccrypto_sha256_add(&state, chunk.baseAddress, chunk.count)
            return true
        }
        guard let total = read else {
            throw BodyFolder.failure(.fileWrite, "cannot read \(path)")
        }
        guard total == self.bytes else {
            throw FetchError(
                kind: .fileWrite, message: "\(path) holds \(total) bytes where \(self.bytes) were written")
        }
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { ccrypto_sha256_finish(&state, $0.baseAddress) }
        return Digest.hex(digest)
    }

    /// Opens the folder's file `name` for reading, never through a symbolic link.
    private func open(_ name: String) throws(FetchError) -> Int32 {
        let input = openat(self.folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else {
            throw BodyFolder.failure(.fileWrite, "cannot read \(self.folder.path(of: name))")
        }
        return input
    }

    /// Reads the file open on `descriptor` from its start, whatever its offset, 64 KB at a time,
    /// handing each piece to `take` until the end or until `take` returns false.
    /// - Returns: the bytes read, or `nil` when a read failed.
    private static func read(_ descriptor: Int32, _ take: (UnsafeRawBufferPointer) -> Bool) -> Int? {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let count = pread(descriptor, chunk.baseAddress, chunk.count, off_t(total))
            if count < 0 && errno == EINTR {
                continue
            }
            guard count >= 0 else {
                return nil
            }
            guard count > 0 else {
                return total
            }
            total += count
            guard take(UnsafeRawBufferPointer(rebasing: chunk[..<count])) else {
                return total
            }
        }
    }

    /// Copies the folder's file `source` to `name`, through a temporary like every other file.
    private func copy(_ source: String, to name: String) throws(FetchError) {
        let input = try self.open(source)
        defer { close(input) }
        guard let (output, temporary) = self.folder.createTemporary() else {
            throw BodyFolder.failure(.fileWrite, "cannot create a file in \(self.folder.path)")
        }
        // Rare (a URL repeated in one batch), so a plain read and write loop.
        var complete = true
        let copied = Self.read(input) { chunk in
            complete = BodyFolder.writeAll(chunk, to: output)
            return complete
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
