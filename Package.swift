// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "batchfetch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BatchFetch", targets: ["BatchFetch"]),
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
        // SQLite, found through pkg-config, for the on-disk response cache (Sources/BatchFetch/Cache).
        .systemLibrary(
            name: "CSQLite",
            path: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // mallopt and sync_file_range, which Swift's Glibc module does not expose; for the command only.
        .systemLibrary(name: "CLinux", path: "CLinux"),
        .target(
            name: "BatchFetch",
            dependencies: [
                "CCurl",
                "CSQLite",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        .target(
            name: "CocktailDB",
            dependencies: ["BatchFetch"]
        ),
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
                "CLinux",
                "CocktailDB",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "cocktaildb-replica",
            dependencies: [
                "CocktailReplica",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "BatchFetchTests",
            dependencies: [
                "BatchFetch",
                "CocktailReplica",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "BatchFetch",
                "CocktailDB",
                "CocktailReplica",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "CocktailDBTests",
            dependencies: ["CocktailDB", "BatchFetch", "CocktailReplica"]
        ),
        .testTarget(
            name: "CocktailReplicaTests",
            dependencies: [
                "CocktailReplica",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
