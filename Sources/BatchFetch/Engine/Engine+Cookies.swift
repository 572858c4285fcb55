extension Engine {
    /// Cookies, as curl's `--cookie` and `--cookie-jar` handle them.
    ///
    /// With ``files`` or ``jar`` the engine keeps one cookie jar for the whole batch: a cookie a
    /// response sets is sent with every later request it matches (domain, path, expiry, `Secure`),
    /// whichever transfer it arrived on.
    public struct Cookies: Sendable, Hashable {
        /// Sent with every request as its `Cookie` field (`name=value; other=value`), with the
        /// jar's cookies for the request, if any, in the same field.
        public var header: String?
        /// Files to fill the jar from when the engine starts: the Netscape cookie file format that
        /// curl and browser extensions write, or `Set-Cookie:` header lines. `""` starts an empty
        /// jar. A file that cannot be read adds no cookies, as in curl.
        public var files: [String]
        /// A file to write every cookie of the jar to when the engine shuts down (Netscape format),
        /// replacing it.
        public var jar: String?

        /// Creates a cookie configuration.
        public init(header: String? = nil, files: [String] = [], jar: String? = nil) {
            self.header = header
            self.files = files
            self.jar = jar
        }

        /// Whether the engine keeps a jar: cookies that servers set are sent back.
        var keepsJar: Bool {
            !self.files.isEmpty || self.jar != nil
        }
    }
}
