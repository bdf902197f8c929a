import Foundation
import Glibc

/// The outside programs that tests start, each with the package that installs it.
///
/// Every test that starts a server finds it here, so a missing one fails with the same message, naming the command
/// that installs it; a test is never skipped for want of a server. `scripts/test` installs every package listed, and
/// a test (`QuickStartTests`) checks that it does, so a new server cannot be added without its install step.
public enum TestTool: String, CaseIterable, Sendable {
    case redisServer = "redis-server"
    case redisCLI = "redis-cli"
    case nginx
    case openssl
    case motoServer = "moto_server"
    case python3
    case curl
    case systemdAnalyze = "systemd-analyze"
    case readelf

    /// What installs it: a Debian package, or a PyPI requirement (`moto[server]`).
    public var package: Package {
        switch self {
        case .redisServer: .debian("redis-server")
        case .redisCLI: .debian("redis-tools")
        case .nginx: .debian("nginx")
        case .openssl: .debian("openssl")
        case .motoServer: .python("moto[server]")
        case .python3: .debian("python3")
        case .curl: .debian("curl")
        case .systemdAnalyze: .debian("systemd")
        case .readelf: .debian("binutils")
        }
    }

    public enum Package: Sendable, Equatable {
        case debian(String)
        case python(String)

        public var name: String {
            switch self {
            case .debian(let name), .python(let name): name
            }
        }
    }

    public struct Missing: Error, CustomStringConvertible {
        public let tool: TestTool

        public init(tool: TestTool) { self.tool = tool }

        public var description: String {
            "\(tool.rawValue) is not installed, and this test needs it. Run scripts/test, which installs every "
                + "test dependency (here: \(tool.package.name)) and then runs the suite."
        }
    }

    /// The executable's path, searching PATH and then the usual system folders.
    ///
    /// Throws `Missing` when it is not installed. Uses access(2) directly: `FileManager.isExecutableFile` answered
    /// false for pyenv's shims inside xctest.
    public func path() throws(Missing) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/usr/sbin", "/bin"]
        for folder in folders {
            let candidate = "\(folder)/\(rawValue)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw Missing(tool: self)
    }
}
