import Testing

/// Expects two byte arrays to be equal, reporting lengths and the first difference instead of
/// printing kilobytes of integers.
func expectBytes(
    _ actual: [UInt8],
    _ expected: [UInt8],
    _ label: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard actual != expected else { return }
    let firstDifference =
        zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actual.count, expected.count)
    let context = String(decoding: actual.dropFirst(max(0, firstDifference - 20)).prefix(60), as: UTF8.self)
    Issue.record(
        "\(label): \(actual.count) bytes, expected \(expected.count); first difference at \(firstDifference): …\(context)…",
        sourceLocation: sourceLocation
    )
}
