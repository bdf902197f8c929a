import Foundation
import RichPush
@testable import RichPushCore
@testable import RichPushHTTP
import TestSupport
import XCTest

final class BodyAccumulatorTests: XCTestCase {
    private func feed(_ accumulator: inout BodyAccumulator, _ bytes: Data, chunk: Int) {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            bytes[offset..<end].withUnsafeBytes { accumulator.append($0.baseAddress!, count: $0.count) }
            offset = end
        }
    }

    func testAnnouncedLengthFillsAPooledBuffer() {
        let pool = BodyBufferPool()
        var accumulator = BodyAccumulator(pool: pool)
        let expected = LoopbackOrigin.body(seed: 1, size: 100_000)
        accumulator.expect(length: expected.count)
        feed(&accumulator, expected, chunk: 16_384)
        XCTAssertEqual(accumulator.take(), expected)
        XCTAssertEqual(accumulator.take(), Data(), "take hands the bytes over once")
    }

    func testOverflowingTheAnnouncedLengthSpillsWithoutLosingBytes() {
        var accumulator = BodyAccumulator(pool: BodyBufferPool())
        let expected = LoopbackOrigin.body(seed: 2, size: 200_000)
        accumulator.expect(length: 10)            // a 64 KiB buffer, far too small
        feed(&accumulator, expected, chunk: 50_000)
        XCTAssertEqual(accumulator.take(), expected)
    }

    func testUnannouncedAndOversizedBodiesUseData() {
        var accumulator = BodyAccumulator(pool: BodyBufferPool())
        let expected = LoopbackOrigin.body(seed: 3, size: 5_000)
        feed(&accumulator, expected, chunk: 999)
        XCTAssertEqual(accumulator.take(), expected)
        XCTAssertNil(BodyBufferPool().take(minimumCapacity: 3 * 1024 * 1024))
    }

    func testResetAndSecondHeaderBlockKeepState() {
        var accumulator = BodyAccumulator(pool: BodyBufferPool())
        accumulator.expect(length: 100)
        feed(&accumulator, Data("abc".utf8), chunk: 3)
        accumulator.expect(length: 100_000)      // trailers: must not discard what arrived
        XCTAssertEqual(accumulator.take(), Data("abc".utf8))
        feed(&accumulator, Data("zzz".utf8), chunk: 3)
        accumulator.reset()
        XCTAssertEqual(accumulator.take(), Data())
    }

    func testReleasedDataReturnsItsBufferToThePool() throws {
        let pool = BodyBufferPool()
        let first = try XCTUnwrap(pool.take(minimumCapacity: 100_000))
        XCTAssertEqual(first.capacity, 128 * 1024)
        first.pointer.storeBytes(of: 42, as: UInt8.self)
        var data: Data? = pool.data(first.pointer, count: 1, capacity: first.capacity)
        XCTAssertEqual(data?.first, 42)
        data = nil
        let second = try XCTUnwrap(pool.take(minimumCapacity: 70_000))
        XCTAssertEqual(second.pointer, first.pointer, "the released buffer is reused")
        pool.give(second.pointer, capacity: second.capacity)
    }

    func testPooledDataBehavesLikeOrdinaryData() {
        var accumulator = BodyAccumulator(pool: BodyBufferPool())
        let expected = LoopbackOrigin.body(seed: 5, size: 70_000)
        accumulator.expect(length: expected.count)
        feed(&accumulator, expected, chunk: 7_000)
        var body = accumulator.take()
        let copy = body
        body[0] ^= 0xff
        body.append(contentsOf: [1, 2, 3])
        XCTAssertEqual(copy, expected, "value semantics: the copy is untouched")
        XCTAssertEqual(body.count, 70_003)
        XCTAssertEqual(body.suffix(3), Data([1, 2, 3]))
        XCTAssertEqual(body[1..<70_000], expected[1..<70_000])
    }
}
