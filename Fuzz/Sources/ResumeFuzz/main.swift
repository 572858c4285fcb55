import CocktailDB
import Foundation
import FuzzDriver

// libFuzzer entry: the `crawl --resume` reader (CocktailDB's ResumeFile) on arbitrary file contents.
//
// Invariants: it never crashes or hangs; when it accepts a file, the kept bytes end at a newline
// (or are 0), every kept line names a facet, and the names come back in the file's order.
// /dev/shm when there is one: a file per input is the slow part.
private let path =
    (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp") + "/bf-resume-fuzz-\(getpid()).ndjson"

@_cdecl("LLVMFuzzerTestOneInput")
public func resumeFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else {
        return 0
    }
    let facet = Facet.allCases[Int(start[0]) % Facet.allCases.count]
    let contents = Data(bytes: start + 1, count: count - 1)
    guard FileManager.default.createFile(atPath: path, contents: contents) else {
        fatalError("cannot write \(path)")
    }
    do {
        let resumed = try ResumeFile.read(path: path, facet: facet)
        precondition(resumed.keptBytes >= 0 && resumed.keptBytes <= contents.count, "kept \(resumed.keptBytes)")
        precondition(
            resumed.keptBytes == 0 || contents[contents.startIndex + resumed.keptBytes - 1] == 0x0A,
            "the kept part does not end at a newline")
        let keptLines = contents.prefix(resumed.keptBytes).split(separator: 0x0A, omittingEmptySubsequences: false)
            .dropLast()
        precondition(keptLines.count == resumed.done.count, "\(keptLines.count) lines, \(resumed.done.count) facets")
    } catch {
        precondition(error.description.contains("refusing") || error.description.contains("cannot read"))
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { resumeFuzz($0, count) } ?? 0 })
