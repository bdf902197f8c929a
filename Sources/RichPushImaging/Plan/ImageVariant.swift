import RichPushCore

/// One output rendition: a box, how to fit into it, and how to encode.
public struct ImageVariant: Sendable, Hashable, Codable {
    public enum Fit: String, Sendable, Codable {
        /// Fit within the box, keeping the aspect ratio; never upscales.
        case contain
        /// Fill the box: scale, then centre-crop the overflow.
        case cover
    }

    public enum OutputFormat: String, Sendable, Codable {
        /// PNG when the image has real (non-opaque) alpha, JPEG otherwise.
        case automatic, jpeg, png
        /// Lossy WebP, with alpha when the image has any: for fields only Android reads (`BitmapFactory` decodes it;
        /// an iOS service extension does not attach it).
        case webp
        /// What `automatic` writes, or WebP when that is smaller at the same SSIMULACRA2 target: both are searched to
        /// the variant's `qualityTarget` and the smaller file is kept. Without a target there is no score to compare
        /// at, so it writes what `automatic` does. For fields only Android reads.
        case webpWhenSmaller = "webp_when_smaller"

    }

    /// An opaque colour that alpha is flattened onto when JPEG output is forced.
    public struct Background: Sendable, Hashable, Codable {
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
        public static let white = Background(red: 255, green: 255, blue: 255)
        /// Mid grey, SSIMULACRA2's default background: translucent pixels are scored as shown on it.
        static let metricGrey = Background(red: 128, green: 128, blue: 128)
    }

    public var name: String
    public var width: Int
    public var height: Int
    public var fit: Fit
    public var format: OutputFormat
    /// JPEG quality to try first (1...100): the fixed quality without a `qualityTarget`, the search's first guess
    /// with one.
    public var quality: Int
    /// The lowest JPEG quality the byte budget may step down to, and the quality search's floor (on the standard
    /// tables' scale: the search moves it to the tables it encodes with).
    public var minimumQuality: Int
    /// Byte budget for the encoded output, or nil for none.
    public var maximumBytes: Int?
    /// Always progressive scans. Without it a fixed-quality JPEG is baseline, and a searched one (`qualityTarget`)
    /// is whichever of the two is smaller (the pixels are the same).
    public var progressive: Bool
    public var background: Background
    /// The SSIMULACRA2 score a JPEG output must reach (90 is visually lossless, 80 high quality): the JPEG quality
    /// is searched per image for the smallest file at or above it, within `minimumQuality...100`, the byte budget
    /// and the deadline (`QualitySearch`). Nil encodes at `quality`, stepping down only for the byte budget.
    public var qualityTarget: Double?
    /// Whether an animated GIF source is published as it came (the device plays it); false renders its first
    /// frame as a still, for a field whose device shows only that (Android's `BitmapFactory`).
    public var keepsAnimation = true

    public init(name: String, width: Int, height: Int, fit: Fit = .contain, format: OutputFormat = .automatic,
                quality: Int = defaultQuality, minimumQuality: Int = 60, maximumBytes: Int? = nil, progressive: Bool = false,
                background: Background = .white, qualityTarget: Double? = nil) {
        self.name = name
        self.width = width
        self.height = height
        self.fit = fit
        self.format = format
        self.quality = quality
        self.minimumQuality = minimumQuality
        self.maximumBytes = maximumBytes
        self.progressive = progressive
        self.background = background
        self.qualityTarget = qualityTarget
    }

    /// The fixed JPEG quality of a variant without a quality target.
    public static let defaultQuality = 82

    /// The SSIMULACRA2 score the command-line tools search each render for unless told `--quality-target off`: the
    /// median score `defaultQuality` gives over the measured images, so that a typical image looks as it did at the
    /// fixed quality while each one gets the fewest bytes that reach it (docs/benchmarks.md, "The default quality
    /// target").
    public static let defaultQualityTarget = 75.0

    /// Notification attachment: fit within 1038x1038, at most 400 KB.
    public static let attachment = ImageVariant(name: VariantName.attachment, width: 1038, height: 1038, fit: .contain,
                                                maximumBytes: 400_000)
    /// Story page: fill 1080x1620, at most 350 KB.
    public static let story = ImageVariant(name: VariantName.story, width: 1080, height: 1620, fit: .cover,
                                           maximumBytes: 350_000)

    /// Android big picture: fit (never crop) within 1440x1440, at most 400 KB, well under the 1 MiB that Firebase's
    /// SDK refuses (`AndroidDeviceLimits`); WebP when it is smaller at the quality target.
    public static let bigPicture = ImageVariant.still(ImageVariant(
        name: VariantName.bigPicture, width: 1440, height: 1440, fit: .contain, format: .webpWhenSmaller, maximumBytes: 400_000))
    /// Android large icon: fit within 256x256, at most 100 KB; WebP when it is smaller at the quality target.
    public static let largeIcon = ImageVariant.still(ImageVariant(
        name: VariantName.largeIcon, width: 256, height: 256, fit: .contain, format: .webpWhenSmaller, maximumBytes: 100_000))

    /// `variant` rendering an animated GIF's first frame (`keepsAnimation` false): Android shows no more of it.
    private static func still(_ variant: ImageVariant) -> ImageVariant {
        var still = variant
        still.keepsAnimation = false
        return still
    }

    /// A stable canonical string of every field that changes the output bytes (for cache keys).
    public var cacheDescription: String {
        let budget = maximumBytes.map(String.init) ?? "none"
        return "\(name);\(width)x\(height);fit=\(fit.rawValue);format=\(format.rawValue);q=\(quality);"
            + "qmin=\(minimumQuality);max=\(budget);progressive=\(progressive);"
            + "bg=\(background.red),\(background.green),\(background.blue)"
            // Appended only when set, so the keys of fixed-quality variants stay what they were.
            + (qualityTarget.map { ";target=\($0)" } ?? "")
            + (keepsAnimation ? "" : ";still")
    }
}
