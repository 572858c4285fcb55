import Foundation
import TestSupport
import Testing

/// The command is linked with tcmalloc where its runtime library is installed (Package.swift;
/// scripts/setup installs it), ahead of the C library, so its `malloc` is the one the process uses.
struct AllocatorTests {
    @Test func theCommandIsLinkedWithTCMallocWhereItIsInstalled() throws {
        let directories = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
        let installed = directories.contains {
            FileManager.default.fileExists(atPath: "\($0)/libtcmalloc_minimal.so.4")
        }
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ldd.arguments = ["ldd", try Executable("batchfetch").url.path]
        let pipe = Pipe()
        ldd.standardOutput = pipe
        try ldd.run()
        let libraries = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        ldd.waitUntilExit()
        let tcmalloc = libraries.firstIndex { $0.hasPrefix("libtcmalloc_minimal.so.4 ") }
        let libc = libraries.firstIndex { $0.hasPrefix("libc.so.6 ") }
        #expect(libc != nil, "\(libraries)")
        if installed {
            // Symbols resolve in load order: tcmalloc's malloc wins only ahead of libc's.
            #expect(
                tcmalloc != nil && libc != nil && tcmalloc! < libc!,
                """
                tcmalloc is installed but batchfetch is not linked with it ahead of libc: \(libraries); \
                if it was installed after SwiftPM last read Package.swift, `swift package purge-cache` \
                and build again
                """)
        } else {
            #expect(tcmalloc == nil, "\(libraries)")
        }
    }
}
