internal import CBytes
import Foundation

/// The vector instructions the body kernels (escaping, JSON validation, base64 in CBytes) use.
///
/// By default the best this CPU runs; the `BATCHFETCH_SIMD` environment variable asks for a lower
/// one (`scalar`, `sse2`, `ssse3`, `avx2`, `avx512`, `neon`), so that one machine can measure and
/// test every level it has. A level above the CPU's best, or of the other architecture, is capped
/// at the best. The level is read once per process, when a kernel first runs.
///
/// Threading: immutable after the first read; use from any thread.
public enum SIMDLevel: String, CaseIterable, Sendable {
    /// Byte (or word) at a time in general-purpose registers: any CPU.
    case scalar
    /// 16-byte vectors, every x86_64 CPU.
    case sse2
    /// SSE2 and byte shuffles (x86_64 since 2006).
    case ssse3
    /// 32-byte vectors (x86_64: Intel since 2013, AMD since 2015).
    case avx2
    /// 64-byte vectors and mask registers (Intel Xeon since 2017, AMD since Zen 4).
    case avx512
    /// aarch64's 16-byte vectors (every ARM64 CPU).
    case neon

    /// What `BATCHFETCH_SIMD` says.
    public enum Request: Equatable, Sendable {
        /// Unset or empty: the CPU's best.
        case unset
        /// A level, before capping.
        case level(SIMDLevel)
        /// A name that is no level (the command line refuses it; the library uses the CPU's best).
        case unknown(String)
    }

    /// The level every kernel uses in this process.
    public static var current: SIMDLevel {
        Self(cLevel: cbytes_simd_level())
    }

    /// The best level this CPU runs.
    public static var best: SIMDLevel {
        Self(cLevel: cbytes_simd_cpu_level())
    }

    /// What `BATCHFETCH_SIMD` asks for.
    public static var requested: Request {
        switch cbytes_simd_requested() {
        case -1:
            return .unset
        case -2:
            return .unknown(ProcessInfo.processInfo.environment["BATCHFETCH_SIMD"] ?? "")
        case let level:
            return .level(Self(cLevel: level))
        }
    }

    /// Whether this CPU runs the level.
    public var isAvailable: Bool {
        cbytes_simd_available(self.cLevel) != 0
    }

    /// The levels this CPU runs, narrowest first (scalar always).
    public static var available: [SIMDLevel] {
        Self.allCases.filter(\.isAvailable)
    }

    /// A line for `--version`: the level in use, and why when it is not simply the CPU's best.
    public static var report: String {
        let best = Self.best
        switch Self.requested {
        case .unset:
            return "SIMD: \(Self.current.rawValue) (the CPU's best; BATCHFETCH_SIMD may ask for less)"
        case .level(let level) where level == Self.current:
            return "SIMD: \(level.rawValue) (BATCHFETCH_SIMD; the CPU's best is \(best.rawValue))"
        case .level(let level):
            return "SIMD: \(Self.current.rawValue) (BATCHFETCH_SIMD=\(level.rawValue) capped: "
                + "the CPU's best is \(best.rawValue))"
        case .unknown(let name):
            return "SIMD: \(Self.current.rawValue) (BATCHFETCH_SIMD=\(name) names no level)"
        }
    }

    /// A message saying what is wrong with `BATCHFETCH_SIMD`, or `nil` when it is unset or names
    /// a level.
    public static var requestProblem: String? {
        guard case .unknown(let name) = Self.requested else {
            return nil
        }
        let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
        return "BATCHFETCH_SIMD=\(name) names no SIMD level: use one of \(names), or unset it for the CPU's best"
    }

    /// The level's number in CBytes (CBYTES_SIMD_*).
    var cLevel: CInt {
        CInt(Self.allCases.firstIndex(of: self) ?? 0)
    }

    init(cLevel: CInt) {
        let index = Int(cLevel)
        self = Self.allCases.indices.contains(index) ? Self.allCases[index] : .scalar
    }
}
