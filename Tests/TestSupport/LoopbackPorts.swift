import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// TCP ports on 127.0.0.1 for servers a test starts (nginx, openssl's TLS server): free ones, and
/// whether one accepts yet.
package enum LoopbackPorts {
    /// `count` free ports on 127.0.0.1: bound together (so they differ), read back, released.
    package static func free(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { _ = close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(socket)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
                }
            }
            guard bound else {
                throw LoopbackPortsError()
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    package static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                connect(socket, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// No free port could be bound on 127.0.0.1.
package struct LoopbackPortsError: Error, CustomStringConvertible {
    package var description: String { "no free port on 127.0.0.1" }
}
