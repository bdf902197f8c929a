import Foundation
import Synchronization
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
@testable import RichPushImaging
@testable import RichPushHTTP
@testable import RichPushCache
@testable import RichPushPipeline
import TestSupport

final class LineProcessorTests: PipelineTestCase {
    /// `documents` in batches of one to seven lines, as a reader hands over the lines of each read.
    private func lines(_ documents: [String]) -> AsyncStream<[Data]> {
        AsyncStream { continuation in
            var start = 0
            while start < documents.count {
                let end = min(documents.count, start + 1 + start % 7)
                continuation.yield(documents[start..<end].map { Data($0.utf8) })
                start = end
            }
            continuation.finish()
        }
    }

    func testResultIsWrittenBeforeTheNextLineArrives() async throws {
        // A live pipe: the first line's result must not wait for later input (it once waited for 16 lines).
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let (stream, continuation) = AsyncStream.makeStream(of: [Data].self)
        let emitted = Mutex<[String]>([])
        let processor = LineProcessor(enricher: enricher, concurrency: 16, ordered: true)
        let run = Task {
            await processor.run(stream, emit: { data, _ in
                emitted.withLock { $0.append(String(decoding: data, as: UTF8.self)) }
            })
        }
        continuation.yield([Data(#"{"id":"first","payload":{"aps":{"content-available":1}}}"#.utf8)])
        try await waitUntil(timeout: .seconds(10), "the first result", interval: .milliseconds(5)) {
            !emitted.withLock { $0.isEmpty }
        }
        XCTAssertEqual(emitted.withLock { $0.count }, 1, "the first result is out while the input is still open")
        continuation.yield([Data(#"{"id":"second","payload":{"aps":{"content-available":1}}}"#.utf8)])
        continuation.finish()
        let summary = await run.value
        XCTAssertEqual(summary.lines, 2)
        XCTAssertEqual(emitted.withLock { $0.count }, 2)
        XCTAssertTrue(emitted.withLock { $0[0].contains(#""id":"first""#) })
    }

    func testEveryLineGetsExactlyOneOutputInInputOrder() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        var documents: [String] = []
        for index in 1...1000 {
            switch index % 10 {
            case 3: documents.append("{not json")
            case 6: documents.append("")
            case 9: documents.append(#"{"id":"m\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}},"image_url":"https://media.example.com/hero.jpg"}}"#)
            default: documents.append(#"{"id":"p\#(index)","payload":{"aps":{"alert":{"title":"T","body":"B"}}}}"#)
            }
        }
        let processor = LineProcessor(enricher: enricher, concurrency: 32, ordered: true)
        let outputs = Mutex<[JSONValue]>([])
        let summary = await processor.run(lines(documents), emit: { data, _ in
            let value = try? JSONParser.parse(data)
            outputs.withLock { $0.append(value ?? .null) }
        })
        let collected = outputs.withLock { $0 }
        XCTAssertEqual(summary.lines, 1000)
        XCTAssertEqual(collected.count, 1000)
        for (index, output) in collected.enumerated() {
            let line = index + 1
            XCTAssertEqual(output.value(at: "/line"), .number(String(line)), "output \(index) is out of order")
            switch line % 10 {
            case 3, 6: XCTAssertEqual(output.value(at: "/status"), .string("rejected"))
            case 9: XCTAssertEqual(output.value(at: "/status"), .string("enriched"))
            default: XCTAssertEqual(output.value(at: "/status"), .string("passthrough"))
            }
        }
        XCTAssertEqual(summary.statuses[.rejected], 200)
        XCTAssertEqual(summary.statuses[.enriched], 100)
    }

    func testUnorderedModeStillEmitsEveryLineOnce() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let documents = (1...200).map { #"{"id":"j\#($0)","aps":{"alert":"hello"}}"# }
        let processor = LineProcessor(enricher: enricher, concurrency: 8, ordered: false)
        let seen = Mutex<[Int]>([])
        _ = await processor.run(lines(documents), emit: { data, _ in
            guard case .number(let text)? = (try? JSONParser.parse(data))?.value(at: "/line"), let line = Int(text) else { return }
            seen.withLock { $0.append(line) }
        })
        XCTAssertEqual(seen.withLock { $0 }.sorted(), Array(1...200))
    }

    func testABatchLargerThanTheConcurrencyIsStartedAsRoomFrees() async throws {
        // One read can hand over more lines than may run at once: they wait in the batch, each taken as it starts.
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let documents = (1...50).map { #"{"id":"b\#($0)","aps":{"alert":"hello"}}"# }
        let (stream, continuation) = AsyncStream.makeStream(of: [Data].self)
        continuation.yield(documents.map { Data($0.utf8) })
        continuation.finish()
        let processor = LineProcessor(enricher: enricher, concurrency: 4, ordered: false)
        let taken = Mutex(0)
        let counts = Mutex((emitted: 0, mostInFlight: 0))
        let summary = await processor.run(stream, lineTaken: { taken.withLock { $0 += 1 } }, emit: { _, _ in
            let started = taken.withLock { $0 }
            counts.withLock { $0 = ($0.emitted + 1, max($0.mostInFlight, started - $0.emitted)) }
        })
        XCTAssertEqual(summary.lines, 50)
        XCTAssertEqual(taken.withLock { $0 }, 50, "each line is taken once, as its job starts")
        XCTAssertEqual(counts.withLock { $0.emitted }, 50)
        XCTAssertLessThanOrEqual(counts.withLock { $0.mostInFlight }, 4, "no more jobs run at once than the concurrency")
        XCTAssertGreaterThan(counts.withLock { $0.mostInFlight }, 1, "the batch's lines run concurrently")
    }

    func testPushwooshRequestBodyYieldsOneLineHoldingEveryNotification() async throws {
        let (enricher, fetcher, _) = try makeEnricher()
        defer { fetcher.shutdown() }
        let body = #"{"request":{"application":"XXXXX-XXXXX","notifications":[{"content":"one","platforms":[1]},{"content":"two","platforms":[1]}]}}"#
        let processor = LineProcessor(enricher: enricher, concurrency: 4)
        let outputs = Mutex<[JSONValue]>([])
        _ = await processor.run(lines([body]), emit: { data, _ in
            outputs.withLock { $0.append((try? JSONParser.parse(data)) ?? .null) }
        })
        let output = try XCTUnwrap(outputs.withLock { $0 }.first)
        XCTAssertEqual(outputs.withLock { $0.count }, 1)
        guard case .array(let jobs)? = output.value(at: "/jobs") else { return XCTFail("no jobs array in \(output)") }
        XCTAssertEqual(jobs.count, 2)
        XCTAssertEqual(output.value(at: "/jobs/1/apns/payload/aps/alert/body"), .string("two"))
    }
}
