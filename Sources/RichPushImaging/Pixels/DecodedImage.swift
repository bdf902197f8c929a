/// Decoder output: pixels (straight alpha unless `isPremultiplied`) plus what must survive into the encoded file.
package struct DecodedImage: Sendable {
    package var pixels: PixelBuffer
    /// An RGB ICC profile to embed in the output (CMYK and grey profiles are dropped).
    var iccProfile: [UInt8]?
    var warnings: [String] = []
    /// Set by a decoder that shrank premultiplied pixels while decoding (`PNGDecoder.decodeShrunk`).
    var isPremultiplied = false
    /// Whether the source had a translucent pixel, when the decoder saw it before shrinking (a shrunk block can
    /// round to opaque); nil means "look at `pixels`".
    var hasTranslucentPixels: Bool?
    /// The size the decoder produced its rows at when it resized them as they arrived (`JPEGDecoder` at its DCT
    /// scale, `PNGDecoder` at the stored size); nil means `pixels`' size.
    var decodedSize: (width: Int, height: Int)?
}

enum ICCProfile {
    /// Only RGB profiles describe our 8-bit RGB output; a CMYK or grey profile would mis-colour it.
    static func keepIfRGB(_ profile: [UInt8]?) -> [UInt8]? {
        guard let profile, profile.count >= 132 else { return nil }
        return Array(profile[16..<20]) == Array("RGB ".utf8) ? profile : nil
    }
}
