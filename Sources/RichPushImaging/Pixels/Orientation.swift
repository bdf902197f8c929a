/// Applies an EXIF orientation (1...8) so the pixels come out upright.
enum Orientation {
    static func apply(_ orientation: Int, to image: PixelBuffer) -> PixelBuffer {
        guard (2...8).contains(orientation) else { return image }
        let width = image.width, height = image.height, channels = image.channels
        let swaps = orientation >= 5
        var output = PixelBuffer(width: swaps ? height : width, height: swaps ? width : height, channels: channels)
        let outputWidth = output.width, outputHeight = output.height
        image.pixels.withUnsafeBufferPointer { source in
            output.pixels.withUnsafeMutableBufferPointer { destination in
                for y in 0..<outputHeight {
                    for x in 0..<outputWidth {
                        // Where the upright pixel (x, y) is stored in the source.
                        let sourceX: Int, sourceY: Int
                        switch orientation {
                        case 2: (sourceX, sourceY) = (width - 1 - x, y)
                        case 3: (sourceX, sourceY) = (width - 1 - x, height - 1 - y)
                        case 4: (sourceX, sourceY) = (x, height - 1 - y)
                        case 5: (sourceX, sourceY) = (y, x)
                        case 6: (sourceX, sourceY) = (y, height - 1 - x)
                        case 7: (sourceX, sourceY) = (width - 1 - y, height - 1 - x)
                        default: (sourceX, sourceY) = (width - 1 - y, x)
                        }
                        let from = (sourceY * width + sourceX) * channels
                        let to = (y * outputWidth + x) * channels
                        for channel in 0..<channels { destination[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return output
    }
}
