import Foundation
import RichPush
import RichPushImaging
import ImagingTestSupport

/// One fuzzed entry point: bytes in, any outcome but a crash, hang or leak.
enum FuzzTarget: String, CaseIterable {
    /// Format sniffing and header probing, with default limits.
    case probe
    /// The whole render path with small limits, fed JPEG-, PNG-, WebP-, GIF- or HEIF-shaped bytes (a GIF is
    /// validated by giflib and passed through).
    case jpeg, png, webp, gif, heif
    /// HEIF's header walk alone (no libheif): the item table, item locations and the coded sizes read from `hvcC`
    /// SPSs, `av1C` and the item data's parameter sets and sequence headers, so mutations reach the parsers at
    /// probe speed instead of waiting for a decode.
    case heifBoxes = "heif-boxes"
    /// JSON parsing, shape adapters, story rules and APNs rendering.
    case payload
    /// PNG decoding through the libdeflate fast path and through libpng alone: any difference in pixels or in
    /// accepting the file is a failure.
    case pngPaths = "png-paths"
    /// Raw bytes as one client connection's input to an in-process `HTTPServer` (see `HTTPRequestFuzzing`).
    case httpRequest = "http-request"

    /// Small limits keep each execution fast and make the limit checks themselves part of what is fuzzed.
    private static let renderer = ImagePipeline(limits: ImageLimits(
        maximumPixels: 4_000_000, maximumSide: 4096, maximumSourceBytes: 1 << 20))
    private static let variant = ImageVariant(
        name: "fuzz", width: 64, height: 64, fit: .cover, format: .automatic, quality: 70, minimumQuality: 60,
        maximumBytes: nil, progressive: false)
    private static let parser = PayloadParser()
    private static let apns = APNsRenderer()

    func run(_ bytes: Data) {
        switch self {
        case .probe:
            _ = try? ImageProbe.probe(bytes)
        case .jpeg:
            render(Self.prefixed(bytes, with: [0xFF, 0xD8, 0xFF]))
        case .png:
            render(Self.prefixed(bytes, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        case .webp:
            render(Self.prefixed(bytes, with: Array("RIFF".utf8)))
        case .gif:
            render(Self.prefixed(bytes, with: Array("GIF89a".utf8)))
        case .heif:
            render(Self.withFileTypeBox(bytes))
        case .heifBoxes:
            _ = try? ImageProbe.probe(Self.withFileTypeBox(bytes), limits: Self.renderer.limits)
        case .pngPaths:
            let png = PNGDecodePathComparison.repairingChunkCRCs(
                Self.prefixed(bytes, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            if let difference = PNGDecodePathComparison.difference(in: png, limits: Self.renderer.limits) {
                // The fuzzer's way to report a finding: a trap, with the input saved as the reproducer.
                preconditionFailure("PNG decode paths disagree: \(difference)")
            }
        case .httpRequest:
            HTTPRequestFuzzing.run(bytes)
        case .payload:
            guard case .jobs(let jobs) = Self.parser.parse(bytes) else { return }
            for job in jobs {
                // Alternate outcomes so both the rewrite and the drop/fallback paths run.
                var media: [ExactString: MediaOutcome] = [:]
                for (index, reference) in job.media.enumerated() {
                    media[reference.pointerKey] = index % 2 == 0
                        ? .published(
                            PublishedMedia(
                                publicURL: "https://cdn.test/objects/aa/bb/\(index).jpg", format: .jpeg, bytes: 900_000,
                                size: PixelSize(width: 10, height: 10)),
                            .rendered)
                        : .failed(ImageError.corrupt(reason: "fuzzed failure"))
                }
                if case .rendered(let request, _) = Self.apns.render(job, media: media) {
                    _ = request.payload.serialized()
                }
            }
        }
    }

    /// Keeps the fuzzer inside one decoder: inputs that lost their signature get it back.
    private static func prefixed(_ bytes: Data, with signature: [UInt8]) -> Data {
        if bytes.starts(with: signature) { return bytes }
        return Data(signature) + bytes
    }

    /// HEIF is recognised by its `ftyp` box at byte 0: inputs without one get a HEIC one.
    private static func withFileTypeBox(_ bytes: Data) -> Data {
        if bytes.count >= 8, bytes[bytes.startIndex + 4..<bytes.startIndex + 8].elementsEqual("ftyp".utf8) { return bytes }
        return Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + bytes
    }

    private func render(_ bytes: Data) {
        _ = try? Self.renderer.renderBlocking(bytes, as: Self.variant, deadline: .now + .seconds(10))
    }
}
