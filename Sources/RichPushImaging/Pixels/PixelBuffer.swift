/// Interleaved 8-bit pixels: 3 channels (RGB) or 4 (RGBA, straight or premultiplied as the stage says).
package struct PixelBuffer: Sendable {
    package var width: Int
    package var height: Int
    package var channels: Int
    package var pixels: [UInt8]

    init(width: Int, height: Int, channels: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = [UInt8](repeating: 0, count: width * height * channels)
    }

    init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    var rowBytes: Int { width * channels }

    /// True when there is an alpha channel and at least one pixel is not fully opaque.
    var hasTranslucentPixels: Bool {
        channels == 4 && pixels.withUnsafeBufferPointer { Self.hasTranslucentPixels($0) }
    }

    /// True when any pixel of the RGBA samples in `rgba` is not fully opaque.
    static func hasTranslucentPixels(_ rgba: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 3
        while index < rgba.count {
            if rgba[index] != 255 { return true }
            index += 4
        }
        return false
    }

    /// Drops the alpha channel (for images whose alpha is all 255).
    func droppingAlpha() -> PixelBuffer {
        guard channels == 4 else { return self }
        var output = PixelBuffer(width: width, height: height, channels: 3)
        let count = width * height
        pixels.withUnsafeBufferPointer { source in
            output.pixels.withUnsafeMutableBufferPointer { destination in
                for index in 0..<count {
                    destination[index * 3] = source[index * 4]
                    destination[index * 3 + 1] = source[index * 4 + 1]
                    destination[index * 3 + 2] = source[index * 4 + 2]
                }
            }
        }
        return output
    }

    /// Adds an opaque alpha channel.
    func addingAlpha() -> PixelBuffer {
        guard channels == 3 else { return self }
        var output = PixelBuffer(width: width, height: height, channels: 4)
        let count = width * height
        pixels.withUnsafeBufferPointer { source in
            output.pixels.withUnsafeMutableBufferPointer { destination in
                for index in 0..<count {
                    destination[index * 4] = source[index * 3]
                    destination[index * 4 + 1] = source[index * 3 + 1]
                    destination[index * 4 + 2] = source[index * 3 + 2]
                    destination[index * 4 + 3] = 255
                }
            }
        }
        return output
    }

    /// Composites straight RGBA over an opaque background colour.
    func flattened(onto background: ImageVariant.Background) -> PixelBuffer {
        guard channels == 4 else { return self }
        var output = PixelBuffer(width: width, height: height, channels: 3)
        let count = width * height
        let backgroundChannels = [UInt32(background.red), UInt32(background.green), UInt32(background.blue)]
        pixels.withUnsafeBufferPointer { source in
            output.pixels.withUnsafeMutableBufferPointer { destination in
                for index in 0..<count {
                    let alpha = UInt32(source[index * 4 + 3])
                    for channel in 0..<3 {
                        let value = UInt32(source[index * 4 + channel]) * alpha + backgroundChannels[channel] * (255 - alpha)
                        destination[index * 3 + channel] = UInt8((value + 127) / 255)
                    }
                }
            }
        }
        return output
    }

    /// Straight → premultiplied alpha, so resampling does not bleed the colour of transparent pixels into edges.
    mutating func premultiply() {
        guard channels == 4 else { return }
        pixels.withUnsafeMutableBufferPointer { Self.premultiply($0) }
    }

    /// Premultiplies the RGBA samples in `rgba` in place.
    static func premultiply(_ rgba: UnsafeMutableBufferPointer<UInt8>) {
        var index = 0
        while index + 3 < rgba.count {
            let alpha = UInt32(rgba[index + 3])
            if alpha != 255 {
                rgba[index] = UInt8((UInt32(rgba[index]) * alpha + 127) / 255)
                rgba[index + 1] = UInt8((UInt32(rgba[index + 1]) * alpha + 127) / 255)
                rgba[index + 2] = UInt8((UInt32(rgba[index + 2]) * alpha + 127) / 255)
            }
            index += 4
        }
    }

    mutating func unpremultiply() {
        guard channels == 4 else { return }
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                let alpha = UInt32(buffer[index + 3])
                if alpha == 0 {
                    buffer[index] = 0; buffer[index + 1] = 0; buffer[index + 2] = 0
                } else if alpha != 255 {
                    buffer[index] = UInt8(min(255, (UInt32(buffer[index]) * 255 + alpha / 2) / alpha))
                    buffer[index + 1] = UInt8(min(255, (UInt32(buffer[index + 1]) * 255 + alpha / 2) / alpha))
                    buffer[index + 2] = UInt8(min(255, (UInt32(buffer[index + 2]) * 255 + alpha / 2) / alpha))
                }
                index += 4
            }
        }
    }
}
