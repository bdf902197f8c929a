import Foundation
import XCTest
import RichPush
@testable import RichPushCore
@testable import RichPushImaging
import TestSupport

/// Fixture paths, checksums and small image helpers shared by the imaging tests.
enum ImagingHelpers {
    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: fixture(relativePath))
    }

    static var farBudget: WorkBudget { WorkBudget(deadline: .now + .seconds(120)) }

    /// Lines "md5  name" → [name: md5].
    static func checksums(_ relativePath: String) throws -> [(name: String, md5: String)] {
        let text = try String(contentsOf: fixture(relativePath), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2 else { return nil }
            return (String(parts[1]), String(parts[0]))
        }
    }

    /// Decodes any supported still to straight RGBA at full size.
    static func decodeRGBA(_ bytes: Data) throws -> PixelBuffer {
        let probe = try ImageProbe.probe(bytes)
        let decoded: DecodedImage
        switch probe.format {
        case .jpeg: decoded = try JPEGDecoder.decode(bytes, budget: farBudget)
        case .png: decoded = try PNGDecoder.decode(bytes, limits: ImageLimits(), budget: farBudget)
        case .webp: decoded = try WebPDecoder.decode(bytes, layout: .rgba, budget: farBudget)
        case .gif: throw ImageError.unsupportedFormat(detected: "GIF")
        case .heic, .avif: decoded = try HEIFDecoder.decode(bytes, format: probe.format, limits: ImageLimits(), budget: farBudget)
        }
        return decoded.pixels.addingAlpha()
    }

    static func pixel(_ image: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let start = (y * image.width + x) * image.channels
        return image.pixels[start..<(start + image.channels)].map(Int.init)
    }

    static func encodeJPEG(_ image: PixelBuffer, quality: Int = 90) throws -> Data {
        try JPEGEncoder.encode(image, quality: quality, progressive: false, iccProfile: nil, budget: farBudget)
    }

    static func render(_ bytes: Data, _ variant: ImageVariant) throws -> RenderedImage {
        try ImagePipeline().renderSynchronously(bytes, as: variant, budget: farBudget)
    }

    /// The pixels a render of `source` fitted within `width` x `height` encodes: the same resize, written
    /// losslessly and decoded.
    static func resizedPixels(_ source: Data, width: Int, height: Int) throws -> PixelBuffer {
        var lossless = ImageVariant(name: "t", width: width, height: height)
        lossless.format = .png
        return try PNGDecoder.decode(render(source, lossless).bytes, limits: ImageLimits(), budget: farBudget).pixels
    }

    /// A GIF with a 2-colour table and `frames` full-screen frames.
    static func tinyGIF(width: UInt8, height: UInt8, frames: Int) -> [UInt8] {
        gif(screenWidth: Int(width), screenHeight: Int(height),
            frames: Array(repeating: (0, 0, Int(width), Int(height)), count: frames))
    }

    /// A GIF89a with a 2-colour table and the given frames, each with real LZW data (alternating pixels, a clear
    /// code before each one so the code width stays at 3 bits). `pixelCount` overrides how many pixels each
    /// frame's data holds (fewer than its area makes a frame that does not decode).
    static func gif(screenWidth: Int, screenHeight: Int, frames: [(left: Int, top: Int, width: Int, height: Int)],
                    pixelCount: Int? = nil) -> [UInt8] {
        func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        var bytes = Array("GIF89a".utf8) + little16(screenWidth) + little16(screenHeight) + [0x80, 0, 0]
        bytes += [0, 0, 0, 255, 255, 255]
        for frame in frames {
            bytes += [0x2C] + little16(frame.left) + little16(frame.top) + little16(frame.width) + little16(frame.height) + [0]
            var packed: [UInt8] = []
            var bits: UInt32 = 0, used: UInt32 = 0
            func code(_ value: UInt32) {
                bits |= value << used
                used += 3
                while used >= 8 { packed.append(UInt8(bits & 0xFF)); bits >>= 8; used -= 8 }
            }
            for pixel in 0..<(pixelCount ?? frame.width * frame.height) {
                code(4)                       // clear
                code(UInt32(pixel % 2))
            }
            code(5)                           // end of information
            if used > 0 { packed.append(UInt8(bits & 0xFF)) }
            bytes.append(2)                   // LZW minimum code size
            for start in stride(from: 0, to: packed.count, by: 255) {
                let block = packed[start..<min(packed.count, start + 255)]
                bytes += [UInt8(block.count)] + block
            }
            bytes.append(0)
        }
        return bytes + [0x3B]
    }

    /// `bytes` with the one occurrence of `pattern` replaced (a box field of a fixture, patched in place); fails the
    /// test when the pattern is missing or not unique, so a regenerated fixture cannot silently test nothing.
    static func patching(_ bytes: Data, _ pattern: [UInt8], with replacement: [UInt8],
                         file: StaticString = #filePath, line: UInt = #line) -> Data {
        precondition(pattern.count == replacement.count, "a patch keeps every offset")
        let source = [UInt8](bytes)
        let matches = (0...(source.count - pattern.count)).filter { source[$0..<$0 + pattern.count].elementsEqual(pattern) }
        guard matches.count == 1, let at = matches.first else {
            XCTFail("\(pattern) occurs \(matches.count) times", file: file, line: line)
            return bytes
        }
        var patched = source
        patched.replaceSubrange(at..<at + pattern.count, with: replacement)
        return Data(patched)
    }

    /// CPU time of this process's children that have ended and been reaped (getrusage RUSAGE_CHILDREN): a HEIF
    /// decode worker's CPU shows here once it is reaped, and never while it runs.
    static func reapedChildrenCPUTime() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let user = Duration.seconds(usage.ru_utime.tv_sec) + .microseconds(usage.ru_utime.tv_usec)
        return user + .seconds(usage.ru_stime.tv_sec) + .microseconds(usage.ru_stime.tv_usec)
    }

    /// The process IDs whose parent is this process (running, or ended and not yet reaped), from /proc.
    static func childProcesses() -> [Int] {
        let me = Int(getpid())
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int? in
            guard let pid = Int(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "pid (name)": the state, then the parent's ID.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int(fields[1]) == me ? pid : nil
        }
    }

    /// CPU time the calling thread has used.
    static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Starts a memory measurement: resets this process's peak RSS to its current RSS (Linux's clear_refs "5"), so
    /// `peakResidentKilobytes()` afterwards is this test's own peak, not one an earlier test reached; returns the
    /// current RSS in KB. (`ru_maxrss` is a lifetime peak and could never fail after a hungrier test.)
    static func startMemoryMeasurement(file: StaticString = #filePath, line: UInt = #line) -> Int {
        if (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) == nil {
            XCTFail("cannot reset the peak RSS through /proc/self/clear_refs; the memory bound is not measured", file: file, line: line)
        }
        return statusKilobytes("VmRSS:")
    }

    /// The peak RSS in KB since the last `startMemoryMeasurement()`.
    static func peakResidentKilobytes() -> Int { statusKilobytes("VmHWM:") }

    private static func statusKilobytes(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    // MARK: PNG data and checksums (written here; no CryptoKit on Linux)

    /// A zlib stream of stored (uncompressed) deflate blocks, at most 65 535 bytes each.
    static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var a: UInt32 = 1, b: UInt32 = 0
        var start = 0
        repeat {
            let end = min(bytes.count, start + 65_535)
            let length = UInt16(end - start)
            output += [end == bytes.count ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            for byte in bytes[start..<end] { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
            start = end
        } while start < bytes.count
        return output + bigEndian32(b << 16 | a)
    }

    /// PNG row unfiltering straight from the specification (RFC 2083 §6), a byte at a time.
    static func referenceUnfilter(_ filtered: [UInt8], type: UInt8, previous: [UInt8], bytesPerPixel: Int) -> [UInt8] {
        var row = filtered
        for index in 0..<row.count {
            let left = index >= bytesPerPixel ? Int(row[index - bytesPerPixel]) : 0
            let above = Int(previous[index])
            let aboveLeft = index >= bytesPerPixel ? Int(previous[index - bytesPerPixel]) : 0
            let prediction: Int
            switch type {
            case 0: prediction = 0
            case 1: prediction = left
            case 2: prediction = above
            case 3: prediction = (left + above) / 2
            default:
                let estimate = left + above - aboveLeft
                let (a, b, c) = (abs(estimate - left), abs(estimate - above), abs(estimate - aboveLeft))
                prediction = a <= b && a <= c ? left : (b <= c ? above : aboveLeft)
            }
            row[index] = UInt8((Int(row[index]) + prediction) & 0xFF)
        }
        return row
    }


    static func md5(_ message: [UInt8]) -> String {
        let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
        let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296.0)) }
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) * 8
        for index in 0..<8 { padded.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))) }
        var words = [UInt32](repeating: 0, count: 16)
        for chunk in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let base = chunk + index * 4
                words[index] = UInt32(padded[base]) | UInt32(padded[base + 1]) << 8 | UInt32(padded[base + 2]) << 16
                    | UInt32(padded[base + 3]) << 24
            }
            var (a, b, c, d) = (state[0], state[1], state[2], state[3])
            for round in 0..<64 {
                var f: UInt32
                let g: Int
                switch round {
                case 0..<16: f = (b & c) | (~b & d); g = round
                case 16..<32: f = (d & b) | (~d & c); g = (5 * round + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * round + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * round) % 16
                }
                f = f &+ a &+ constants[round] &+ words[g]
                a = d; d = c; c = b
                b = b &+ (f << shifts[round] | f >> (32 - shifts[round]))
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        }
        return state.flatMap { word in (0..<4).map { String(format: "%02x", (word >> (8 * UInt32($0))) & 0xFF) } }.joined()
    }

    /// A 160x160 diagonal colour gradient, plus a pixel checker of `checker` levels.
    static func gradient(checker: Int) -> PixelBuffer {
        var pixels = PixelBuffer(width: 160, height: 160, channels: 3)
        for y in 0..<160 {
            for x in 0..<160 {
                for channel in 0..<3 {
                    pixels.pixels[(y * 160 + x) * 3 + channel] = UInt8(40 + (x + y) * (channel + 1) / 6 + (x + y) % 2 * checker)
                }
            }
        }
        return pixels
    }

    /// Red and blue lines one pixel wide, 96x96.
    static let sharpColourEdges: PixelBuffer = {
        var pixels = PixelBuffer(width: 96, height: 96, channels: 3)
        for y in 0..<96 {
            for x in 0..<96 {
                let red = (x + y / 24) % 2 == 0
                pixels.pixels[(y * 96 + x) * 3] = red ? 220 : 30
                pixels.pixels[(y * 96 + x) * 3 + 2] = red ? 30 : 220
                pixels.pixels[(y * 96 + x) * 3 + 1] = UInt8(y)
            }
        }
        return pixels
    }()
}
