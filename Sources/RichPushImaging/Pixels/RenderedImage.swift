import Foundation

/// The encoded result of `ImagePipeline.render`.
package struct RenderedImage: Sendable {
    package var bytes: Data
    package var format: ImageFormat
    package var width: Int
    package var height: Int
    /// What the source headers said.
    package var source: ImageProbe
    /// The JPEG quality used, or nil for PNG and passed-through GIF.
    package var quality: Int?
    /// The SSIMULACRA2 score of a JPEG chosen by a quality search (against the pixels before encoding), or nil.
    package var score: Double?
    /// Non-fatal notes, e.g. "animated WebP: first frame only".
    package var warnings: [String]
    /// The decisions the render followed (and reserved its memory for).
    package var plan: RenderPlan
    /// The size the decoder really produced its rows at, before any resize (stored axes): for comparing with
    /// `plan.decodedWidth` and `plan.decodedHeight`.
    package var decodedWidth: Int
    package var decodedHeight: Int

    package init(bytes: Data, format: ImageFormat, width: Int, height: Int, source: ImageProbe, quality: Int?, score: Double? = nil,
                warnings: [String], plan: RenderPlan, decodedWidth: Int, decodedHeight: Int) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.source = source
        self.quality = quality
        self.score = score
        self.warnings = warnings
        self.plan = plan
        self.decodedWidth = decodedWidth
        self.decodedHeight = decodedHeight
    }
}
