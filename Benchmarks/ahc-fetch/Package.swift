// swift-tools-version:6.1
// The async-http-client peer for scripts/bench: its own package, so batchfetch never depends on it.
// Build: swift build -c release (inside this folder; its .build stays here, ignored by git).
import PackageDescription

let package = Package(
    name: "ahc-fetch",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "ahc-fetch",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
