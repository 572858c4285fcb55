import BatchFetch

#if canImport(Glibc)
    import Glibc
#endif

/// Sorts a file of records by index in bounded memory, for shards written with
/// `fetch --order completion`: the file is read in chunks of ``chunkBytes``, each chunk's records
/// are sorted and written to a temporary file (a sorted run), and the runs join the merge as
/// sources of their own.
///
/// Memory: one chunk (more only when one record is longer) and 24 bytes per record in it.
/// Disk: the file's size, in files unlinked as soon as they are made, so nothing is left behind
/// whatever ends the process.
struct RecordSorter {
    /// The sorted runs, and whether the file ended in a cut-off record (left out).
    struct Runs {
        var sources: [RecordMerger.Input] = []
        var cutOff: (index: Int?, present: Bool) = (nil, false)
    }

    let temporaryDirectory: String
    var chunkBytes = 32 << 20
    var bufferSize = 1 << 18

    /// Whether `path`'s records are in index order (equal indices allowed): one pass that stops
    /// at the first record out of order.
    func isSorted(path: String) throws(MergeError) -> Bool {
        var source = try RecordSource(path: path, origin: 0, bufferSize: 1 << 20)
        var previous = -1
        while try source.advance() {
            guard source.index >= previous else {
                return false
            }
            previous = source.index
            guard try source.skipRecord() else {
                break
            }
        }
        return true
    }

    /// Sorts `path`'s records into runs whose sources carry `origin`.
    func sortedRuns(path: String, origin: Int) throws(MergeError) -> Runs {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MergeError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var runs = Runs()
        var capacity = self.chunkBytes
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var entries: [Entry] = []
        var filled = 0
        var lineStart = 0
        var atEnd = false
        while !atEnd {
            let got = read(descriptor, buffer + filled, capacity - filled)
            if got < 0 {
                guard errno == EINTR else {
                    throw MergeError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))")
                }
                continue
            }
            atEnd = got == 0
            var searchFrom = filled
            filled += got
            while let newline = memchr(buffer + searchFrom, 0x0A, filled - searchFrom) {
                let end = UnsafeMutableRawPointer(newline) - UnsafeMutableRawPointer(buffer) + 1
                guard let index = RecordSource.parseIndex(buffer + lineStart, count: end - lineStart) else {
                    throw MergeError(
                        .notARecord,
                        "\(path): a line is not a batchfetch record (it does not start with {\"index\":N,)")
                }
                entries.append(Entry(index: index, start: lineStart, count: end - lineStart))
                lineStart = end
                searchFrom = end
            }
            if atEnd && lineStart < filled {
                runs.cutOff = (RecordSource.parseIndex(buffer + lineStart, count: filled - lineStart), true)
            }
            guard atEnd || filled == capacity else {
                continue
            }
            if !entries.isEmpty {
                let number = runs.sources.count + 1
                runs.sources.append(
                    try self.writeRun(entries: &entries, from: buffer, path: path, origin: origin, number: number))
            } else if !atEnd {
                // One record fills the chunk: make room for the rest of it.
                let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                larger.update(from: buffer, count: filled)
                buffer.deallocate()
                buffer = larger
                capacity *= 2
                continue
            }
            let kept = filled - lineStart
            if kept > 0 && lineStart > 0 {
                memmove(buffer, buffer + lineStart, kept)
            }
            filled = kept
            lineStart = 0
        }
        return runs
    }

    private struct Entry {
        let index: Int
        let start: Int
        let count: Int
    }

    /// Writes the records of `entries` in index order to a new unlinked temporary file and returns
    /// it as a merge input, open at its start; empties `entries`.
    private func writeRun(
        entries: inout [Entry], from buffer: UnsafeMutablePointer<UInt8>, path: String, origin: Int, number: Int
    ) throws(MergeError) -> RecordMerger.Input {
        entries.sort { $0.index < $1.index }
        var template = Array("\(self.temporaryDirectory)/batchfetch-merge-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw MergeError(
                .unreadable,
                "cannot make a temporary file in \(self.temporaryDirectory) to sort \(path): "
                    + "\(String(cString: strerror(errno))) (choose another folder with --temp-dir)")
        }
        unlink(template)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var output = MergeOutputBuffer(sink: MergeOutputBuffer.writing(to: descriptor))
        do throws(MergeError) {
            for entry in entries {
                try output.beginRecord()
                output.append(buffer + entry.start, count: entry.count)
                output.keepRecord()
            }
            try output.finish()
        } catch {
            close(descriptor)
            throw MergeError(
                .unreadable, "cannot write a temporary file in \(self.temporaryDirectory) to sort \(path): \(error)")
        }
        entries.removeAll(keepingCapacity: true)
        lseek(descriptor, 0, SEEK_SET)
        return .run(
            descriptor: descriptor, name: "\(path) (sorted part \(number))", origin: origin, bufferSize: self.bufferSize
        )
    }
}
