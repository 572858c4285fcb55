// swift-tools-version:6.1
// The robots.txt matcher's cost per URL (issue 52): a plain executable timed with a monotonic clock,
// as the measured code needs no benchmark framework and this one builds with no new dependency.
// Run: swift run -c release --package-path Benchmarks/robots   (its own .build)
import PackageDescription

let package = Package(
    name: "batchfetch-robots-benchmark",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The batchfetch package itself, two folders up, named explicitly: SwiftPM would name it after
        // the folder the repository was cloned into.
        .package(name: "batchfetch", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "RobotsBenchmark",
            dependencies: [.product(name: "BatchFetchRobots", package: "batchfetch")]
        )
    ],
    swiftLanguageModes: [.v6]
)
