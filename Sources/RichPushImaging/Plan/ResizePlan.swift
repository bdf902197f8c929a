/// Geometry of one render: the stored-image region to read and the size to produce (before orientation).
package struct ResizePlan: Equatable {
    /// Output size in stored (pre-orientation) axes.
    var outputWidth: Int
    var outputHeight: Int
    /// Region of the source (in source pixels, fractional) that maps onto the output.
    var cropX: Double
    var cropY: Double
    var cropWidth: Double
    var cropHeight: Double

    /// Plans a fit of a `width`x`height` stored image whose upright form is rotated when `swapsAxes`.
    static func make(width: Int, height: Int, swapsAxes: Bool, boxWidth: Int, boxHeight: Int, fit: ImageVariant.Fit) -> ResizePlan {
        // Work in stored axes: rotate the box instead of the image.
        let box = swapsAxes ? (max(1, boxHeight), max(1, boxWidth)) : (max(1, boxWidth), max(1, boxHeight))
        let sourceWidth = Double(width), sourceHeight = Double(height)
        switch fit {
        case .contain:
            let scale = min(1, min(Double(box.0) / sourceWidth, Double(box.1) / sourceHeight))
            let outputWidth = max(1, min(box.0, Int((sourceWidth * scale).rounded())))
            let outputHeight = max(1, min(box.1, Int((sourceHeight * scale).rounded())))
            return ResizePlan(outputWidth: outputWidth, outputHeight: outputHeight, cropX: 0, cropY: 0,
                              cropWidth: sourceWidth, cropHeight: sourceHeight)
        case .cover:
            // Never upscale: a small source gives a smaller output with the box's aspect ratio.
            let scale = min(1, max(Double(box.0) / sourceWidth, Double(box.1) / sourceHeight))
            let outputWidth = max(1, min(box.0, Int((sourceWidth * scale).rounded())))
            let outputHeight = max(1, min(box.1, Int((sourceHeight * scale).rounded())))
            let aspect = Double(box.0) / Double(box.1)
            var cropWidth = sourceWidth, cropHeight = sourceHeight
            if sourceWidth / sourceHeight > aspect { cropWidth = sourceHeight * aspect } else { cropHeight = sourceWidth / aspect }
            let finalWidth = max(1, min(outputWidth, Int((cropWidth * scale).rounded())))
            let finalHeight = max(1, min(outputHeight, Int((cropHeight * scale).rounded())))
            return ResizePlan(outputWidth: finalWidth, outputHeight: finalHeight,
                              cropX: (sourceWidth - cropWidth) / 2, cropY: (sourceHeight - cropHeight) / 2,
                              cropWidth: cropWidth, cropHeight: cropHeight)
        }
    }

    /// The same plan for a source decoded at a smaller size (shrink-on-load).
    func scaled(toSourceWidth newWidth: Int, height newHeight: Int, fromWidth oldWidth: Int, height oldHeight: Int) -> ResizePlan {
        let scaleX = Double(newWidth) / Double(oldWidth), scaleY = Double(newHeight) / Double(oldHeight)
        return ResizePlan(outputWidth: outputWidth, outputHeight: outputHeight, cropX: cropX * scaleX, cropY: cropY * scaleY,
                          cropWidth: cropWidth * scaleX, cropHeight: cropHeight * scaleY)
    }

    /// The size the whole source would have at the output scale (for libwebp's decode-time scaling).
    func fullScaledSize(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        let scaleX = Double(outputWidth) / cropWidth, scaleY = Double(outputHeight) / cropHeight
        return (max(1, Int((Double(sourceWidth) * scaleX).rounded())), max(1, Int((Double(sourceHeight) * scaleY).rounded())))
    }
}
