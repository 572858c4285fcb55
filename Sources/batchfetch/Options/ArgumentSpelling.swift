/// Spellings the command line accepts that swift-argument-parser cannot express, rewritten into
/// ones it can before parsing.
///
/// `--follow` takes an optional count, as wget's and curl's users expect: `--follow` (or curl's
/// `-L`, `--location`) alone follows up to ``defaultRedirects``, `--follow=N` up to N. The parser
/// has no optional values, so the bare forms become `--follow=10`; a bare form followed by a
/// plain number (`--follow 5`) takes it, as no URL is all digits.
enum ArgumentSpelling {
    /// Redirects followed by `--follow` without a count.
    static let defaultRedirects = 10

    static func normalized(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                result += arguments[(index - 1)...]
                break
            }
            guard argument == "--follow" || argument == "-L" || argument == "--location" else {
                result.append(argument)
                continue
            }
            if index < arguments.endIndex, let count = Self.count(arguments[index]) {
                result.append("--follow=\(count)")
                index += 1
            } else {
                result.append("--follow=\(Self.defaultRedirects)")
            }
        }
        return result
    }

    /// The argument as a redirect count: digits only, or a negative number for the range check to refuse.
    private static func count(_ argument: String) -> String? {
        let digits = argument.hasPrefix("-") ? argument.dropFirst() : argument[...]
        return !digits.isEmpty && digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            ? argument : nil
    }
}
