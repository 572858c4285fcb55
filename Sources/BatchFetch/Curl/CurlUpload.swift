internal import CCurl
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A request body read from its file while libcurl sends it (``Request/bodyFile``), so that a
/// body larger than memory costs one buffer of it.
///
/// Opened for each attempt and closed when the attempt ends; rewound when libcurl sends the body
/// again within the attempt (a reused connection found closed, a 307 redirect), which it cannot
/// do without a seek callback. Only regular files: their size is known up front and sent as
/// `Content-Length`, and a read that stops early is the file shrinking, not a stream ending.
///
/// Threading: engine thread only, reached from libcurl's read and seek callbacks through the
/// pointer ``CurlEasy`` gives them.
struct CurlUpload {
    private var descriptor: Int32 = -1
    private var path = ""
    /// The `errno` of a failed read, which aborted the transfer; 0 when none failed.
    private var readError: Int32 = 0

    /// Opens `path` for an attempt. - Returns: the file's size in bytes.
    /// - Throws: ``FetchError/Kind/invalidRequest`` when it cannot be opened or is not a regular file.
    mutating func open(_ path: String) throws(FetchError) -> Int64 {
        self.close()
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.error(path, "cannot open it (\(String(cString: strerror(errno))))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw Self.error(path, "it is not a regular file")
        }
        self.descriptor = descriptor
        self.path = path
        return Int64(status.st_size)
    }

    /// Fills libcurl's buffer. - Returns: the bytes read, 0 at the end, or `CURL_READFUNC_ABORT`.
    mutating func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        guard self.descriptor >= 0 else {
            return 0
        }
        while true {
            let got = Glibc.read(self.descriptor, buffer, count)
            if got >= 0 {
                return got
            }
            if errno != EINTR {
                self.readError = errno
                return Int(CURL_READFUNC_ABORT)
            }
        }
    }

    /// Moves to `offset` from `origin` (`SEEK_SET`, `SEEK_CUR`, `SEEK_END`), as libcurl asks.
    func seek(to offset: Int64, origin: Int32) -> Int32 {
        guard self.descriptor >= 0, lseek(self.descriptor, off_t(offset), origin) >= 0 else {
            return CURL_SEEKFUNC_FAIL
        }
        return CURL_SEEKFUNC_OK
    }

    /// Closes the file and forgets the attempt; idempotent.
    mutating func close() {
        if self.descriptor >= 0 {
            Glibc.close(self.descriptor)
            self.descriptor = -1
        }
        self.readError = 0
    }

    /// Why the attempt stopped, when reading the file failed midway.
    var failure: FetchError? {
        guard self.readError != 0 else {
            return nil
        }
        return Self.error(self.path, "reading it failed (\(String(cString: strerror(self.readError))))")
    }

    private static func error(_ path: String, _ problem: String) -> FetchError {
        FetchError(kind: .invalidRequest, message: "body file \(path): \(problem)")
    }
}

/// libcurl's read callback: the next piece of the body file.
func curlReadUpload(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else {
        return Int(CURL_READFUNC_ABORT)
    }
    return context.assumingMemoryBound(to: CurlUpload.self).pointee.read(into: buffer, count: size * count)
}

/// libcurl's seek callback: rewinds the body file to send it again.
func curlSeekUpload(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context else {
        return CURL_SEEKFUNC_FAIL
    }
    return context.assumingMemoryBound(to: CurlUpload.self).pointee.seek(to: Int64(offset), origin: origin)
}
