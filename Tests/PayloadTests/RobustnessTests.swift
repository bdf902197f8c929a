import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushPayload
import TestSupport

/// Bad input gives an error, never a crash or hang.
final class RobustnessTests: XCTestCase {
    func testMutatedFixturesNeverCrash() throws {
        let directory = packageRoot.appendingPathComponent("Fixtures/payloads")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".golden.json") }.sorted()
        var random = SplitMix(state: 42)
        let parser = PayloadParser()
        let renderer = APNsRenderer()
        var parsed = 0
        var rejected = 0
        let interesting: [UInt8] = Array("{}[]\",:\\0-e.tfn\u{7F}".utf8) + [0x00, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        for name in names {
            let original = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[index] = interesting.randomElement(using: &random) ?? 0
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(interesting.randomElement(using: &random) ?? 0, at: index)
                    }
                }
                switch parser.parse(Data(bytes)) {
                case .rejected(let diagnostics):
                    rejected += 1
                    XCTAssertTrue(diagnostics.contains { $0.severity == .error })
                case .jobs(let jobs):
                    parsed += 1
                    for job in jobs {
                        var media: [ExactString: MediaOutcome] = [:]
                        for (index, reference) in job.media.enumerated() where index % 2 == 0 {
                            media[reference.pointerKey] = PayloadHelpers.rendered("https://cdn.example/\(index).jpg", width: 1, height: 1, bytes: 1)
                        }
                        if case .rendered(let request, _) = renderer.render(job, media: media) {
                            XCTAssertLessThanOrEqual(request.byteCount, 5120)
                            XCTAssertNoThrow(try JSONParser.parse(request.payload.serialized()))
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(parsed, 0)
        XCTAssertGreaterThan(rejected, 0)
    }
}
