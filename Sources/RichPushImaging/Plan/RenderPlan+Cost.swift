extension RenderPlan {
    /// The CPU a render's decode costs, estimated from the headers before anything is decoded: its samples
    /// (`ImageProbe.decodeWork`, a JPEG's summed over its scans) times what one sample costs its decoder on one
    /// core, measured on the corpus (docs/benchmarks.md, "Decode work and render lanes"). An estimate for
    /// scheduling, not a promise: it decides whether a render takes the expensive lane.
    package var estimatedCost: Duration {
        .nanoseconds(Int64(clamping: decodeWork.multipliedReportingOverflow(by: Self.nanosecondsPerSample(decode)).partialValue))
    }

    /// Nanoseconds one decoded sample costs, by decoder, rounded from renders measured here (docs/benchmarks.md,
    /// "Decode work and render lanes"): libjpeg per sample and scan, libpng with the unfiltering, libwebp, and
    /// libheif's HEVC or AV1 decoders, an order of magnitude over libjpeg.
    static func nanosecondsPerSample(_ decode: Decode) -> Int {
        switch decode {
        case .jpeg: 1
        case .png: 8
        case .webp: 4
        case .heif: 25
        case .passThrough, .gifFirstFrame: 2
        }
    }

    /// A render whose decode is estimated at more than this is expensive (`ImagePipeline.render`): a 40 MP
    /// progressive JPEG, a 12 MP HEIC, a 10 MP PNG. A photograph's attachment render is a tenth of it.
    package static let expensiveCost: Duration = .milliseconds(250)

    /// Whether the render goes through the expensive lane: its decode is estimated at `expensiveCost` or more, or
    /// its memory at more than a quarter of the budget's `memoryCapacity`.
    package func isExpensive(memoryCapacity: Int) -> Bool {
        estimatedCost >= Self.expensiveCost || estimatedPeakBytes > memoryCapacity / 4
    }
}
