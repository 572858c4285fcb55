import ArgumentParser
import BatchFetch
import BatchFetchMerge
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where merged records go: standard output, or `-o FILE`. A regular file (or a new one) is
/// written under a temporary name in the same folder and renamed when the merge ends (complete or
/// not), so that FILE never holds a merge that stopped on an error; anything else (a device such
/// as /dev/null, a FIFO, a symbolic link) is written in place, as renaming onto it would replace
/// it. Buffers are written on a thread of their own (``QueuedOutput``), so the kernel copies one
/// while the merge fills the next.
final class MergeTarget {
    private let file: FileHandleOutput
    private let queue: QueuedOutput
    private let path: String?
    private let temporary: String?

    init(path: String?) throws {
        var status = stat()
        guard let path else {
            self.file = FileHandleOutput.standardOutput
            self.queue = QueuedOutput(file: self.file)
            self.path = nil
            self.temporary = nil
            return
        }
        var temporary: String?
        if lstat(path, &status) != 0 || (status.st_mode & S_IFMT) == S_IFREG {
            let url = URL(fileURLWithPath: path)
            temporary =
                url.deletingLastPathComponent().appendingPathComponent(
                    ".\(url.lastPathComponent).merge-\(getpid())"
                ).path
        }
        guard let file = FileHandleOutput(path: temporary ?? path) else {
            FileHandleOutput.standardError.write(
                "batchfetch merge: cannot write to \(path): \(String(cString: strerror(errno)))\n")
            throw ExitCode.usage
        }
        self.file = file
        self.queue = QueuedOutput(file: file)
        self.path = path
        self.temporary = temporary
    }

    /// Queues a buffer; stops the merge once a write has failed.
    var sink: MergeSink {
        { [queue, file] (bytes: inout [UInt8]) throws(MergeError) in
            try Self.check(file)
            queue.write(&bytes)
        }
    }

    /// Waits for every buffer to be written. - Throws: the first write's failure.
    func close() throws(MergeError) {
        self.queue.close()
        try Self.check(self.file)
    }

    private static func check(_ file: FileHandleOutput) throws(MergeError) {
        guard let failure = file.failure else {
            return
        }
        if failure == EPIPE {
            throw MergeError(.brokenPipe, "the output's reader went away")
        }
        throw MergeError(.unwritable, "cannot write the merged records: \(String(cString: strerror(failure)))")
    }

    /// Gives the records file its name.
    func keep() throws {
        guard let path = self.path, let temporary = self.temporary else {
            return
        }
        guard rename(temporary, path) == 0 else {
            FileHandleOutput.standardError.write(
                "batchfetch merge: cannot write to \(path): \(String(cString: strerror(errno)))\n")
            unlink(temporary)
            throw ExitCode.usage
        }
    }

    /// Removes the temporary file of a merge that stopped on an error.
    func discard() {
        self.queue.close()
        if let temporary = self.temporary {
            unlink(temporary)
        }
    }
}
