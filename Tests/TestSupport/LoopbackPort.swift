import Foundation
import Glibc

/// Loopback ports for servers that tests and benchmarks start as child processes (nginx, redis-server).
public enum LoopbackPort {
    /// A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it; the probe socket is closed).
    public static func free() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Returns once something accepts connections on `port`, or throws after `timeout`.
    public static func waitUntilListening(on port: UInt16, timeout: Duration = .seconds(5)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let descriptor = connect(to: port) {
                close(descriptor)
                return
            }
            usleep(10_000)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// A TCP connection to 127.0.0.1:`port` (the caller closes it), or nil when nothing accepts there.
    public static func connect(to port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if connected { return descriptor }
        close(descriptor)
        return nil
    }
}
