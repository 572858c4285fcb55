import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Streams the body of one transfer at a time into a temporary file of a ``BodyFolder``, so that
/// no body is ever held whole in memory (its SHA-256 is taken later, see ``SpooledBody/sha256()``).
///
/// The file (unnamed where it can be, see ``BodyFolder``) is created at the first write, so a
/// transfer that fails before its body leaves none.
/// Bytes gather in a buffer of ``bufferBytes`` and go out in writes of that size at most, plus the
/// rest when the transfer ends: a body that fits is written with one `write(2)` instead of one per
/// libcurl chunk (up to `CURLOPT_BUFFERSIZE`).
///
/// Threading: engine thread only (it lives in a ``CurlReceiver``).
struct BodySpool {
    private let folder: BodyFolder
    private var descriptor: Int32 = -1
    /// The file's name: `nil` while none is open, or for an unnamed one (see ``BodyFolder``).
    private var temporary: String?
    private var buffer: UnsafeMutableRawPointer?
    private var buffered = 0
    /// Body bytes received so far in this transfer.
    private(set) var count = 0
    /// The `errno` of a failed create or write; the transfer must be stopped.
    private(set) var failure: Int32 = 0

    /// How many bytes gather before they are written: one write for most bodies instead of one per
    /// chunk libcurl hands over.
    static let bufferBytes = 64 * 1024

    init(folder: BodyFolder) {
        self.folder = folder
    }

    /// Adds `count` bytes of body. - Returns: false when they could not be written (see ``failure``).
    mutating func append(_ data: UnsafeRawPointer, count: Int) -> Bool {
        self.count += count
        if self.buffered + count > Self.bufferBytes, !self.flush() {
            return false
        }
        if count <= Self.bufferBytes, let buffer = self.buffer ?? self.allocateBuffer() {
            (buffer + self.buffered).copyMemory(from: data, byteCount: count)
            self.buffered += count
            return true
        }
        return self.writeOut(data, count: count)
    }

    /// Ends the body: writes what is buffered and closes the file.
    /// - Returns: the spooled body, or `nil` when there was none (no byte came).
    /// - Throws: ``FetchError/Kind/fileWrite`` when the rest could not be written.
    mutating func finish() throws(FetchError) -> SpooledBody? {
        guard self.count > 0 else {
            return nil
        }
        guard self.flush() else {
            let error = self.writeError
            self.discard()
            throw error
        }
        let file: SpooledBody.File
        if let temporary = self.temporary {
            guard close(self.descriptor) == 0 else {
                self.descriptor = -1
                self.failure = errno
                let error = self.writeError
                self.discard()
                throw error
            }
            file = .temporary(temporary)
        } else {
            // Unnamed: it stays open, or it would vanish, until it is named.
            file = .unnamed(self.descriptor)
        }
        self.descriptor = -1
        self.temporary = nil
        let body = SpooledBody(folder: self.folder, file: file, bytes: self.count)
        self.count = 0
        return body
    }

    /// Why the body could not be written.
    var writeError: FetchError {
        FetchError(
            kind: .fileWrite,
            message: "cannot write a body to \(self.folder.path): \(String(cString: strerror(self.failure)))")
    }

    /// Forgets the current body: closes and removes its file, if it has one. Keeps the buffer.
    mutating func discard() {
        if self.descriptor >= 0 {
            if let temporary = self.temporary {
                close(self.descriptor)
                self.folder.remove(temporary)
            } else {
                self.folder.closeUnnamed(self.descriptor)
            }
            self.descriptor = -1
        }
        self.temporary = nil
        self.buffered = 0
        self.count = 0
        self.failure = 0
    }

    /// Forgets the current body and frees the buffer.
    mutating func deallocate() {
        self.discard()
        free(self.buffer)
        self.buffer = nil
    }

    private mutating func allocateBuffer() -> UnsafeMutableRawPointer? {
        guard Self.bufferBytes > 0 else {
            return nil
        }
        self.buffer = malloc(Self.bufferBytes)
        return self.buffer
    }

    /// Writes the buffered bytes.
    private mutating func flush() -> Bool {
        guard self.buffered > 0, let buffer = self.buffer else {
            return self.openIfNeeded()
        }
        let count = self.buffered
        self.buffered = 0
        return self.writeOut(buffer, count: count)
    }

    private mutating func openIfNeeded() -> Bool {
        guard self.descriptor < 0 else {
            return true
        }
        guard let (descriptor, name) = self.folder.createSpoolFile() else {
            self.failure = errno
            return false
        }
        self.descriptor = descriptor
        self.temporary = name
        return true
    }

    private mutating func writeOut(_ data: UnsafeRawPointer, count: Int) -> Bool {
        guard self.openIfNeeded() else {
            return false
        }
        var offset = 0
        while offset < count {
            let wrote = write(self.descriptor, data + offset, count - offset)
            if wrote < 0 {
                if errno == EINTR {
                    continue
                }
                self.failure = errno
                return false
            }
            offset += wrote
        }
        return true
    }
}
