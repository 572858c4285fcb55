// swift-tools-version:6.1
// libFuzzer targets over the package's own library targets (scripts/fuzz builds and runs them):
// one executable per fuzzer, built with `-sanitize=fuzzer,address`, whose `main` hands its test
// function to libFuzzer's driver.
import PackageDescription

let package = Package(
    name: "batchfetch-fuzz",
    dependencies: [
        .package(name: "batchfetch", path: "..")
    ],
    targets: [
        .target(name: "FuzzDriver"),
        // The envelope decoder (Envelope → JSONScanner, the validator) on arbitrary bytes.
        .executableTarget(
            name: "EnvelopeFuzz",
            dependencies: ["FuzzDriver", .product(name: "BatchFetch", package: "batchfetch")]
        ),
        // The `crawl --resume` reader on arbitrary file contents.
        .executableTarget(
            name: "ResumeFuzz",
            dependencies: [
                "FuzzDriver",
                .product(name: "BatchFetch", package: "batchfetch"),
                .product(name: "CocktailDB", package: "batchfetch"),
            ]
        ),
    ]
)
