import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging

final class PipelineTests: XCTestCase {
    /// A 4032x3024 "photo": smooth gradients plus strong noise in 4x4 blocks, so detail survives the downscale.
    private func noisyPhoto() throws -> Data {
        var image = PixelBuffer(width: 4032, height: 3024, channels: 3)
        var state: UInt32 = 12345
        let blocksPerRow = 4032 / 4
        var noise = [UInt8](repeating: 0, count: blocksPerRow * (3024 / 4) * 3)
        for index in noise.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            noise[index] = UInt8(state >> 24)
        }
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<3024 {
                for x in 0..<4032 {
                    let block = ((y / 4) * blocksPerRow + x / 4) * 3
                    for channel in 0..<3 {
                        let base = (x + y * channel) / 40 % 256
                        pixels[(y * 4032 + x) * 3 + channel] = UInt8((base + 3 * Int(noise[block + channel])) / 4)
                    }
                }
            }
        }
        return try JPEGEncoder.encode(image, quality: 75, progressive: false, iccProfile: nil, budget: ImagingHelpers.farBudget)
    }

    func testNoisyTwelveMegapixelPhotoMeetsTheAttachmentBudget() async throws {
        let bytes = try noisyPhoto()
        XCTAssertLessThan(bytes.count, 10 * 1024 * 1024)
        let rendered = try await ImagePipeline().render(bytes, as: .attachment, deadline: .now + .seconds(60))
        XCTAssertEqual(rendered.format, .jpeg)
        XCTAssertEqual(rendered.width, 1038)
        XCTAssertEqual(rendered.height, 778, "3024 * 1038 / 4032 = 778.5, rounded down by the float scale")
        print("noisy photo: source \(bytes.count) bytes, output \(rendered.bytes.count) bytes at q\(rendered.quality ?? 0)")
        XCTAssertLessThanOrEqual(rendered.bytes.count, 400_000)
        let quality = try XCTUnwrap(rendered.quality)
        XCTAssertGreaterThanOrEqual(quality, 60)
        XCTAssertLessThan(quality, 82, "this photo needs a lower quality to fit")
        // With a budget no quality can meet, it stops at the minimum and says so.
        var tight = ImageVariant.attachment
        tight.maximumBytes = 20_000
        do {
            _ = try await ImagePipeline().render(bytes, as: tight, deadline: .now + .seconds(60))
            XCTFail("expected outputTooLarge")
        } catch {
            guard case .outputTooLarge(let size, 20_000) = error else { return XCTFail("\(error)") }
            XCTAssertGreaterThan(size, 20_000)
        }
    }

    func testQualityLadderStopsAtTheMinimum() {
        XCTAssertEqual(ImageEncoding.qualityLadder(from: 82, minimum: 60), [82, 76, 70, 64, 60])
        XCTAssertEqual(ImageEncoding.qualityLadder(from: 60, minimum: 60), [60])
    }

    func testPostEncodeCheckCatchesCorruptOutput() throws {
        let rendered = try ImagingHelpers.render(try ImagingHelpers.data("imaging/orientation_1.jpg"), .attachment)
        XCTAssertNoThrow(try ImagePipeline.checkOutput(rendered.bytes, format: .jpeg, width: 64, height: 48))
        func assertFails(_ bytes: Data, format: ImageFormat = .jpeg, width: Int = 64, height: Int = 48, because message: String) {
            XCTAssertThrowsError(try ImagePipeline.checkOutput(bytes, format: format, width: width, height: height), message) { error in
                XCTAssertEqual((error as? ImageError)?.code, "output_check_failed", message)
            }
        }
        assertFails(rendered.bytes.prefix(20), because: "truncated")
        assertFails(Data(repeating: 0, count: 500), because: "zeroed")
        assertFails(rendered.bytes, width: 65, because: "wrong width")
        assertFails(rendered.bytes, format: .png, because: "wrong format")
        // A renderer bug writing the wrong height into SOF.
        var patched = [UInt8](rendered.bytes)
        if let sof = (0..<(patched.count - 1)).first(where: { patched[$0] == 0xFF && patched[$0 + 1] == 0xC0 }) {
            patched[sof + 5] = 0; patched[sof + 6] = 47
        }
        assertFails(Data(patched), because: "patched SOF")
    }

    func testPastDeadlineAndCancellationStopWork() async throws {
        let bytes = try ImagingHelpers.data("conformance/jpeg/testorig.jpg")
        do {
            _ = try await ImagePipeline().render(bytes, as: .attachment, deadline: .now - .milliseconds(1))
            XCTFail("expected deadlineExceeded")
        } catch {
            XCTAssertEqual(error, .deadlineExceeded)
        }
        let task = Task { () async -> ImageError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await ImagePipeline().render(bytes, as: .attachment, deadline: .now + .seconds(10))
                return nil
            } catch {
                return error as? ImageError
            }
        }
        let error: ImageError? = await task.value
        XCTAssertEqual(error, ImageError.cancelled)
    }

    func testDeadlineStopsALongDecodeQuickly() throws {
        let bytes = try noisyPhotoSmallerForDeadline()
        let start = ContinuousClock.now
        XCTAssertThrowsError(try ImagePipeline().renderSynchronously(
            bytes, as: ImageVariant(name: "full", width: 4000, height: 4000),
            budget: WorkBudget(deadline: .now + .milliseconds(20)))) { error in
            XCTAssertEqual(error as? ImageError, .deadlineExceeded)
        }
        XCTAssertLessThan(start.duration(to: .now), .seconds(1))
    }

    private func noisyPhotoSmallerForDeadline() throws -> Data {
        var image = PixelBuffer(width: 3000, height: 2000, channels: 3)
        for index in stride(from: 0, to: image.pixels.count, by: 7) { image.pixels[index] = UInt8(index % 251) }
        return try ImagingHelpers.encodeJPEG(image, quality: 95)
    }

    func testPNGWithAlphaStaysPNGAndForcedJPEGFlattensOntoBackground() throws {
        var image = PixelBuffer(width: 40, height: 40, channels: 4)
        for index in stride(from: 0, to: image.pixels.count, by: 4) { image.pixels[index + 1] = 255; image.pixels[index + 3] = 0 }
        for index in stride(from: 0, to: 20 * 40 * 4, by: 4) { image.pixels[index + 3] = 255 }   // top half opaque green
        let png = try PNGEncoder.encode(image, iccProfile: nil, budget: ImagingHelpers.farBudget)
        let automatic = try ImagingHelpers.render(png, .attachment)
        XCTAssertEqual(automatic.format, .png)
        var forced = ImageVariant.attachment
        forced.format = .jpeg
        forced.background = .init(red: 0, green: 0, blue: 255)
        let flattened = try ImagingHelpers.render(png, forced)
        XCTAssertEqual(flattened.format, .jpeg)
        let decoded = try ImagingHelpers.decodeRGBA(flattened.bytes)
        XCTAssertGreaterThan(ImagingHelpers.pixel(decoded, 20, 35)[2], 200, "transparent half shows the background")
        XCTAssertGreaterThan(ImagingHelpers.pixel(decoded, 20, 5)[1], 200, "opaque half keeps its colour")
        // Opaque alpha channels are dropped: JPEG under automatic.
        for index in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[index] = 255 }
        let opaque = try ImagingHelpers.render(try PNGEncoder.encode(image, iccProfile: nil, budget: ImagingHelpers.farBudget), .attachment)
        XCTAssertEqual(opaque.format, .jpeg)
    }

    func testDemoMediaRendersWithinBudgets() throws {
        let expected: [String: ImageFormat] = ["hero.jpg": .jpeg, "story1.jpg": .jpeg, "story2.jpg": .jpeg, "story3.jpg": .jpeg,
                                               "logo.png": .png, "banner.webp": .jpeg]
        for (name, format) in expected {
            let bytes = try ImagingHelpers.data("media/\(name)")
            for variant in [ImageVariant.attachment, .story] {
                let rendered = try ImagingHelpers.render(bytes, variant)
                XCTAssertEqual(rendered.format, format, name)
                XCTAssertLessThanOrEqual(rendered.bytes.count, variant.maximumBytes ?? .max, name)
                XCTAssertLessThanOrEqual(rendered.width, variant.width, name)
                XCTAssertLessThanOrEqual(rendered.height, variant.height, name)
            }
        }
    }

    func testCacheDescriptionCoversOutputFields() {
        var variant = ImageVariant.attachment
        let base = variant.cacheDescription
        variant.quality = 80
        XCTAssertNotEqual(variant.cacheDescription, base)
        variant = .attachment
        variant.background = .init(red: 0, green: 0, blue: 0)
        XCTAssertNotEqual(variant.cacheDescription, base)
        XCTAssertEqual(ImageVariant.attachment.cacheDescription, base)
    }
}
