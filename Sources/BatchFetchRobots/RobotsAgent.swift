/// The product token a crawler is known by in robots.txt files: what `--robots-agent` names.
///
/// RFC 9309 §2.2.1 limits a product token to letters, `_` and `-`; anything else cannot be matched
/// against a `User-agent:` line and is refused here, so that a typo fails at the command line
/// instead of silently selecting the `*` group. Matching is case-insensitive.
///
/// A value type: immutable and safe to share between threads.
public struct RobotsAgent: Sendable, Hashable, CustomStringConvertible {
    /// The token as given.
    public let token: String
    /// The token's octets in lower case, as `User-agent:` values are compared.
    let folded: [UInt8]

    /// Creates an agent from a product token, or returns `nil` if the token is empty or holds
    /// anything other than ASCII letters, `_` and `-`.
    public init?(_ token: String) {
        guard Self.isValidToken(token) else {
            return nil
        }
        self.token = token
        self.folded = token.utf8.map(Self.lowercased)
    }

    /// Whether `token` is a valid product token: non-empty, ASCII letters, `_` and `-` only.
    public static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy(Self.isTokenOctet)
    }

    /// The token as given.
    public var description: String { self.token }

    static func isTokenOctet(_ octet: UInt8) -> Bool {
        switch octet {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Whether a `User-agent:` line's value names this agent: its product token (the leading run of
    /// letters, `_` and `-`, as Google's matcher reads it, so that `Googlebot/2.1` and `Googlebot
    /// Images` both name `googlebot`) equals this token, ignoring case.
    func isNamed(by value: ArraySlice<UInt8>) -> Bool {
        var index = value.startIndex
        for octet in self.folded {
            guard index < value.endIndex, Self.lowercased(value[index]) == octet else {
                return false
            }
            index += 1
        }
        return index == value.endIndex || !Self.isTokenOctet(value[index])
    }

    static func lowercased(_ octet: UInt8) -> UInt8 {
        octet >= UInt8(ascii: "A") && octet <= UInt8(ascii: "Z") ? octet | 0x20 : octet
    }
}
