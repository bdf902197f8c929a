import Foundation
import XCTest

import RichPush
@testable import RichPushCore
@testable import RichPushCache
@testable import RichPushRedis
@testable import RichPushHTTP
@testable import RichPushPipeline

final class RedisCommandTests: XCTestCase {
    private func encoded(_ command: RedisCommand) -> [UInt8] {
        command.withEncodedBytes { Array($0) }
    }

    func testEncodesRESPWithAHeaderThatFollowsTheArgumentCount() {
        var command = RedisCommand("XADD", "results", "*", "result")
        XCTAssertEqual(
            String(decoding: encoded(command), as: UTF8.self),
            "*4\r\n$4\r\nXADD\r\n$7\r\nresults\r\n$1\r\n*\r\n$6\r\nresult\r\n")
        // Binary-safe: CR, LF and NUL inside an argument are counted, not interpreted.
        command.append(Data([0x7B, 0x0D, 0x0A, 0x00, 0x7D]))
        XCTAssertEqual(
            encoded(command),
            Array("*5\r\n$4\r\nXADD\r\n$7\r\nresults\r\n$1\r\n*\r\n$6\r\nresult\r\n$5\r\n".utf8)
                + [0x7B, 0x0D, 0x0A, 0x00, 0x7D, 0x0D, 0x0A])
        XCTAssertEqual(command.name, "XADD")
        XCTAssertEqual(command.argumentCount, 5)
    }

    func testHeaderGrowsPastNineAndNinetyNineArguments() {
        for count in [9, 10, 99, 100, 1_000] {
            let command = RedisCommand(["XACK"] + (1..<count).map { "\($0)-0" })
            let text = String(decoding: encoded(command), as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("*\(count)\r\n$4\r\nXACK\r\n"), String(text.prefix(20)))
            XCTAssertTrue(text.hasSuffix("$\(String(count - 1).count + 2)\r\n\(count - 1)-0\r\n"))
        }
    }

    func testEmptyArgumentsAreEncoded() {
        XCTAssertEqual(String(decoding: encoded(RedisCommand("SET", "key", "")), as: UTF8.self),
                       "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$0\r\n\r\n")
    }
}
