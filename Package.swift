// swift-tools-version:6.1
import Foundation
import PackageDescription

/// The `batchfetch` command allocates with gperftools' tcmalloc where its runtime library is
/// installed (scripts/setup installs `libtcmalloc-minimal4`), and with glibc's malloc elsewhere.
/// Response bodies are allocated on the engine thread and freed on the consumer's, a pattern
/// glibc's per-thread arenas serve poorly (a heap that grows a page per `mprotect`, then faults
/// each page in). Only the command: the libraries leave their host's allocator alone.
/// Linked by file name (`-l:`), as only the runtime package is needed, not the development one.
let tcmalloc: [LinkerSetting] = {
    let directories = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
    let library = "libtcmalloc_minimal.so.4"
    guard directories.contains(where: { FileManager.default.fileExists(atPath: "\($0)/\(library)") }) else {
        return []
    }
    return [.unsafeFlags(["-Xlinker", "-l:\(library)"], .when(platforms: [.linux]))]
}()

let package = Package(
    name: "batchfetch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BatchFetch", targets: ["BatchFetch"]),
        .library(name: "BatchFetchBench", targets: ["BatchFetchBench"]),
        .library(name: "BatchFetchCache", targets: ["BatchFetchCache"]),
        .library(name: "BatchFetchFiles", targets: ["BatchFetchFiles"]),
        .library(name: "BatchFetchMerge", targets: ["BatchFetchMerge"]),
        .library(name: "BatchFetchRobots", targets: ["BatchFetchRobots"]),
        .library(name: "BatchFetchRobotsPolicy", targets: ["BatchFetchRobotsPolicy"]),
        .library(name: "BatchFetchWARC", targets: ["BatchFetchWARC"]),
        .library(name: "CocktailDB", targets: ["CocktailDB"]),
        .library(name: "CocktailReplica", targets: ["CocktailReplica"]),
        .executable(name: "batchfetch", targets: ["batchfetch"]),
        .executable(name: "cocktaildb-replica", targets: ["cocktaildb-replica"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libcurl, found through pkg-config; the shim header wraps its variadic calls.
        .systemLibrary(
            name: "CCurl",
            path: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // SQLite, found through pkg-config, for the on-disk response cache (Sources/BatchFetchCache).
        .systemLibrary(
            name: "CSQLite",
            path: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // SHA-256 from libcrypto (OpenSSL, which libcurl already loads): saved bodies' names and checks.
        .systemLibrary(
            name: "CCrypto",
            path: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // TLS session facts from libssl (OpenSSL, which libcurl already loads): the records' `tls` field.
        .systemLibrary(
            name: "CSSL",
            path: "CSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib's inflate, found through pkg-config: HdrHistogram's compressed encoding as other tools write it.
        .systemLibrary(
            name: "CZlib",
            path: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // ISA-L's igzip, found through pkg-config: `--warc`'s gzip members, each compressed whole.
        .systemLibrary(
            name: "CISAL",
            path: "CISAL",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // SIMD loops over bodies (SSE2 to AVX-512, NEON): JSON string escaping, JSON validation, base64.
        .systemLibrary(name: "CBytes", path: "CBytes"),
        // mallopt, sync_file_range and O_TMPFILE, which Swift's Glibc module does not expose.
        .systemLibrary(name: "CLinux", path: "CLinux"),
        .target(
            name: "BatchFetch",
            dependencies: [
                "CBytes",
                "CCrypto",
                "CCurl",
                "CLinux",
                "CSSL",
                "CZlib",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // The on-disk HTTP cache (`--cache`): a response store the engine consults through the
        // core's `ResponseStore`.
        .target(
            name: "BatchFetchCache",
            dependencies: ["BatchFetch", "CSQLite"]
        ),
        // Saving bodies as files under names from a template (`--save-dir`): the engine streams
        // bodies into a folder of the core's; this names them.
        .target(
            name: "BatchFetchFiles",
            dependencies: ["BatchFetch"]
        ),
        // bench's load generation, latency histograms and reports: what `batchfetch bench` serves.
        .target(
            name: "BatchFetchBench",
            dependencies: [
                "BatchFetch",
                "CZlib",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // Merging and sorting record files and shards: what `batchfetch merge` serves.
        .target(
            name: "BatchFetchMerge",
            dependencies: ["BatchFetch"]
        ),
        // robots.txt (RFC 9309): parsing and matching, no I/O; the engine asks it for an origin's
        // verdicts once that origin's robots.txt has arrived.
        .target(name: "BatchFetchRobots"),
        // robots.txt as the engine's origin policy (`--robots`): the core asks, this answers.
        .target(
            name: "BatchFetchRobotsPolicy",
            dependencies: ["BatchFetch", "BatchFetchRobots"]
        ),
        // WARC 1.1 records, files (a gzip member per record) and CDXJ lines, and the engine's
        // exchanges archived through them: what `--warc` writes.
        .target(
            name: "BatchFetchWARC",
            dependencies: ["BatchFetch", "CCrypto", "CISAL", "CLinux", "CZlib"]
        ),
        // Answers many (robots.txt, agent, URL) queries in one process, for scripts/robots-diff and
        // the robots micro-benchmark (JSON lines in, JSON lines out).
        .executableTarget(
            name: "robots-check",
            dependencies: ["BatchFetchRobots"]
        ),
        .target(
            name: "CocktailDB",
            dependencies: ["BatchFetch"]
        ),
        // Signals caught without loss, for both commands (a handler writing to a pipe).
        .target(name: "ProcessSignals"),
        .target(
            name: "CocktailReplica",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "batchfetch",
            dependencies: [
                "BatchFetch",
                "BatchFetchBench",
                "BatchFetchCache",
                "BatchFetchFiles",
                "BatchFetchMerge",
                "BatchFetchRobots",
                "BatchFetchRobotsPolicy",
                "BatchFetchWARC",
                "CLinux",
                "CocktailDB",
                "ProcessSignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            linkerSettings: tcmalloc
        ),
        .executableTarget(
            name: "cocktaildb-replica",
            dependencies: [
                "CocktailReplica",
                "ProcessSignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the test targets share: the process runner, the seeded generator, scratch folders,
        // waiting helpers and the test HTTP server. A regular target (test targets cannot depend
        // on each other) that only test targets depend on.
        .target(
            name: "TestSupport",
            dependencies: [
                "CocktailReplica",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "BatchFetchTests",
            dependencies: [
                "BatchFetch",
                "BatchFetchBench",
                "BatchFetchCache",
                "BatchFetchFiles",
                "BatchFetchMerge",
                "BatchFetchRobotsPolicy",
                "CocktailReplica",
                "ProcessSignals",
                "TestSupport",
            ]
        ),
        // The command end to end: tests that run the built `batchfetch` as a user would.
        .testTarget(
            name: "BatchFetchCLITests",
            dependencies: [
                "BatchFetch",
                "BatchFetchBench",
                "BatchFetchMerge",
                "CocktailReplica",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "BatchFetch",
                "BatchFetchBench",
                "BatchFetchMerge",
                "CocktailDB",
                "CocktailReplica",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "BatchFetchRobotsTests",
            dependencies: ["BatchFetchRobots"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "BatchFetchWARCTests",
            dependencies: ["BatchFetchWARC", "TestSupport"]
        ),
        .testTarget(
            name: "CocktailDBTests",
            dependencies: ["CocktailDB", "BatchFetch", "CocktailReplica", "TestSupport"]
        ),
        .testTarget(
            name: "CocktailReplicaTests",
            dependencies: [
                "CocktailReplica",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
