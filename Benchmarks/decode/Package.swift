// swift-tools-version:6.1
// Micro-benchmarks of the decoding hot path (google/swift-benchmark), on documents served by the
// replica. Its own package so the main package does not depend on the benchmark library.
//   cd Benchmarks/decode && swift run -c release DecodeBenchmarks
import PackageDescription

let package = Package(
    name: "decode-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "batchfetch", path: "../.."),
        .package(url: "https://github.com/google/swift-benchmark", from: "0.1.2"),
    ],
    targets: [
        .executableTarget(
            name: "DecodeBenchmarks",
            dependencies: [
                .product(name: "BatchFetch", package: "batchfetch"),
                .product(name: "CocktailDB", package: "batchfetch"),
                .product(name: "CocktailReplica", package: "batchfetch"),
                .product(name: "Benchmark", package: "swift-benchmark"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
