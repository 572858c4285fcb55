/// Facts about the library itself.
public enum BatchFetch {
    /// The library version, also sent in the default `User-Agent`.
    public static let version = "0.1.0"
}
