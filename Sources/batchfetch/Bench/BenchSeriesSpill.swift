import ArgumentParser
import BatchFetch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The series points of a run whose `--json` report carries them, kept in an unnamed temporary
/// file as they are cut instead of in memory, and copied into the report when it is written.
///
/// A point is a few KB (mostly its two encoded histograms), so a run that kept them in memory
/// grew by megabytes an hour and then needed several times the series' size again to encode the
/// report in one piece; spilled, the run's memory stays flat however long it lasts. The file holds
/// the points' JSON separated by commas, ready to sit between the report's `[` and `]`; it is
/// unlinked as soon as it is created, so it disappears with the process, even a killed one.
///
/// Threading: ``append(_:)`` from the series' cutting task; ``copy(to:)`` once the run is over.
final class BenchSeriesSpill: Sendable {
    /// Read back by ``copy(to:)``; ``file`` owns it and closes it.
    private let descriptor: Int32
    private let file: FileHandleOutput
    private let appended = Atomic<Bool>(false)

    /// Creates the file in `$TMPDIR` (or `/tmp`).
    /// - Throws: ``ExitCode/usage`` when it cannot be created (said on standard error).
    init() throws {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/batchfetch-series.XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else {
            FileHandleOutput.standardError.write(
                "batchfetch: --json keeps the series in a temporary file, and none can be created in \(directory): "
                    + "\(String(cString: strerror(errno))) (set TMPDIR to a writable folder)\n")
            throw ExitCode.usage
        }
        template.withUnsafeBufferPointer { buffer in
            _ = buffer.baseAddress.map { unlink($0) }
        }
        self.descriptor = descriptor
        self.file = FileHandleOutput(owning: descriptor)
    }

    /// Adds one point's JSON.
    func append(_ json: [UInt8]) {
        let first = !self.appended.exchange(true, ordering: .relaxed)
        json.withUnsafeBytes { point in
            if first {
                self.file.write([point])
            } else {
                Self.comma.withUnsafeBytes { self.file.write([$0, point]) }
            }
        }
    }

    private static let comma: [UInt8] = [0x2C]

    /// The `errno` of the first failed write, or `nil`.
    var failure: Int32? { self.file.failure }

    /// Writes everything added, from the start, to `output`, 64 KB at a time.
    /// - Returns: `false` when the file could not be read back.
    func copy(to output: FileHandleOutput) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { pread(self.descriptor, $0.baseAddress, $0.count, offset) }
            if read < 0 && errno == EINTR {
                continue
            }
            guard read >= 0 else {
                return false
            }
            if read == 0 {
                return true
            }
            buffer.withUnsafeBytes { output.write([UnsafeRawBufferPointer(rebasing: $0[..<read])]) }
            offset += off_t(read)
        }
    }
}
