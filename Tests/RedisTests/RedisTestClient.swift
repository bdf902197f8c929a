import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline

/// Test-side Redis access through the library's own hiredis session.
struct RedisTestClient {
    let session: RedisSession

    init(_ endpoint: RedisEndpoint) {
        session = RedisSession(endpoint: endpoint, timeout: .seconds(5), label: "test")
    }

    @discardableResult
    func command(_ words: String...) async throws -> RedisReply {
        let reply = try await session.perform(RedisCommand(words))
        if let message = reply.errorMessage { throw QueueError.command("\(words.joined(separator: " ")): \(message)") }
        return reply
    }

    /// Adds `count` jobs `{"id":"<prefix>-<n>",…}` in pipelined chunks; returns their ids in order.
    @discardableResult
    func addJobs(_ count: Int, prefix: String = "job", stream: String = "richpush:jobs") async throws -> [String] {
        var ids: [String] = []
        var commands: [RedisCommand] = []
        for index in 0..<count {
            let id = "\(prefix)-\(index)"
            ids.append(id)
            commands.append(RedisCommand("XADD", stream, "*", "job", #"{"id":"\#(id)","aps":{"alert":"hi"}}"#))
            if commands.count == 500 || index == count - 1 {
                let replies = try await session.perform(commands)
                if let failed = replies.first(where: { $0.errorMessage != nil }) { throw QueueError.command(failed.description) }
                commands = []
            }
        }
        return ids
    }

    func entries(_ stream: String) async throws -> [StreamEntry] {
        try StreamEntry.list(from: try await command("XRANGE", stream, "-", "+"), command: "XRANGE", stream: stream)
    }

    func length(_ stream: String) async throws -> Int {
        guard case .integer(let length) = try await command("XLEN", stream) else { return -1 }
        return Int(length)
    }

    /// Job ids of every result entry, duplicates kept.
    func resultJobIDs(_ stream: String = "richpush:results") async throws -> [String] {
        try await entries(stream).map { String(decoding: $0.value(of: "job_id") ?? Data(), as: UTF8.self) }
    }

    /// `XPENDING key group` summary count.
    func pendingCount(stream: String = "richpush:jobs", group: String = "richpush") async throws -> Int {
        let reply = try await command("XPENDING", stream, group)
        guard let fields = reply.elements, case .integer(let count) = fields.first else {
            throw QueueError.unexpectedReply(command: "XPENDING", reply: reply.description)
        }
        return Int(count)
    }
}

/// The fake job handler: `{"id":…}` becomes `{"id":…,"status":"ok"}`; anything unparsable a rejection.
struct FakeJobHandler {
    static func outcome(for job: Data) -> QueueJobOutcome {
        guard let object = try? JSONSerialization.jsonObject(with: job) as? [String: Any], let id = object["id"] as? String else {
            let rejected = #"{"id":null,"status":"rejected","diagnostics":[{"severity":"error","pointer":"","code":"malformed_json","message":"not a JSON object with an id"}]}"#
            return QueueJobOutcome(resultJSON: Data(rejected.utf8), jobID: nil)
        }
        return QueueJobOutcome(resultJSON: Data(#"{"id":"\#(id)","status":"ok"}"#.utf8), jobID: id)
    }
}
