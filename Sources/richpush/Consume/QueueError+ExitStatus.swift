import RichPush

/// A Redis that refuses this worker's TLS at start is a setup to fix, like a usage mistake: exit 2, as the other
/// refusals at start (a bad option, a missing file) do. Every other queue failure is an environment problem: 1.
extension QueueError: CommandFailure {
    var exitStatus: Int32 {
        switch self {
        case .tlsSetup, .tlsHandshake: 2
        default: 1
        }
    }
}
