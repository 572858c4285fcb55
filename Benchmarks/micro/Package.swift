// swift-tools-version:6.1
// Micro-benchmarks for batchfetch's per-request hot path (issue 7, part 3), with ordo-one/benchmark.
// Its own package, so the main package never depends on the benchmark tooling.
// Run: swift package --package-path Benchmarks/micro benchmark   (release build, its own .build)
import PackageDescription

let package = Package(
    name: "batchfetch-micro",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The batchfetch package itself, two folders up, named explicitly: SwiftPM would name it after
        // the folder the repository was cloned into.
        .package(name: "batchfetch", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPath",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "BatchFetch", package: "batchfetch"),
            ],
            path: "Benchmarks/HotPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
