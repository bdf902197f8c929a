import CRichPushImage
import Foundation

/// One JPEG's quantised coefficients, read by libjpeg to be written again untouched in other scan scripts: the same
/// pixels in another order. Cost: an entropy decode to read; per write, libjpeg's Huffman passes (no DCT). Holds the
/// whole image's coefficients, 2 bytes a sample, and a copy of the file.
struct JPEGTranscoder: ~Copyable {
    private let transcoder: OpaquePointer
    private let input: UnsafeMutableBufferPointer<UInt8>
    /// The file's colour components: 3 (YCbCr) for every file our encoder writes.
    let components: Int

    init(_ jpeg: Data) throws(ImageError) {
        guard let transcoder = richpush_jpeg_transcoder_create() else {
            throw .encodeFailed(reason: "JPEG transcoder could not be created")
        }
        let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: jpeg.count)
        _ = input.initialize(from: jpeg)
        let components = richpush_jpeg_transcoder_read(transcoder, input.baseAddress, input.count, JPEGDecoder.maximumMemory)
        guard components > 0 else {
            let error = Self.failure(transcoder)
            richpush_jpeg_transcoder_destroy(transcoder)
            input.deallocate()
            throw error
        }
        self.transcoder = transcoder
        self.input = input
        self.components = Int(components)
    }

    deinit {
        richpush_jpeg_transcoder_destroy(transcoder)
        input.deallocate()
    }

    /// The coefficients as a new file in `script` (nil: one sequential scan), with optimised Huffman tables and
    /// `iccProfile`.
    func write(_ script: JPEGScanScript?, iccProfile: [UInt8]?) throws(ImageError) -> [UInt8] {
        let profile = iccProfile ?? []
        let scans = script?.scanInfo ?? []
        var output: UnsafePointer<UInt8>?
        var length = 0
        let status = scans.withUnsafeBufferPointer { scans in
            profile.withUnsafeBufferPointer { profile in
                richpush_jpeg_transcoder_write(transcoder, scans.baseAddress, Int32(scans.count), profile.baseAddress,
                                               UInt32(profile.count), &output, &length)
            }
        }
        guard status == 0, let output else { throw Self.failure(transcoder) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    private static func failure(_ transcoder: OpaquePointer) -> ImageError {
        .encodeFailed(reason: "JPEG: " + String(cString: richpush_jpeg_transcoder_message(transcoder)))
    }
}
