import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Writes bytes to a file descriptor, retrying short writes. The first failure (a closed pipe,
/// a full disk) is remembered in ``failure`` so callers stop producing output nobody can read.
final class FileHandleOutput: Sendable {
    private let descriptor: Int32
    private let owned: Bool
    private let failedErrno = Atomic<Int32>(0)

    /// The `errno` of the first failed write, or `nil`.
    var failure: Int32? {
        let value = self.failedErrno.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    static let standardOutput = FileHandleOutput(descriptor: 1)
    static let standardError = FileHandleOutput(descriptor: 2)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
        self.owned = false
    }

    /// Opens (creates or truncates) a file for writing.
    init?(path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return nil
        }
        self.descriptor = fd
        self.owned = true
    }

    /// Opens a file for appending after cutting it to its first `keeping` bytes (creating it when
    /// missing), as a resumed crawl does.
    init?(appendingTo path: String, keeping bytes: Int) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return nil
        }
        guard ftruncate(fd, off_t(bytes)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
            close(fd)
            return nil
        }
        self.descriptor = fd
        self.owned = true
    }

    deinit {
        if self.owned {
            close(self.descriptor)
        }
    }

    func write(_ text: String) {
        self.write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { self.write([$0]) }
    }

    /// Writes `pieces` one after another with `writev`, resuming after short writes.
    func write(_ pieces: [UnsafeRawBufferPointer]) {
        var vectors = pieces.compactMap { piece in
            piece.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: piece.count) }
        }
        var first = 0
        while first < vectors.count {
            // At most IOV_MAX (1024 on Linux) vectors per call.
            let written = vectors[first...].withUnsafeBufferPointer { rest in
                Glibc.writev(self.descriptor, rest.baseAddress, Int32(min(rest.count, 1024)))
            }
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                _ = self.failedErrno.compareExchange(expected: 0, desired: errno, ordering: .relaxed)
                return
            }
            // Skip what was written: whole vectors, then part of the next one.
            var left = written
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base += left
                vectors[first].iov_len -= left
            }
        }
    }

    func flush() {
        if self.owned {
            fsync(self.descriptor)
        }
    }
}
