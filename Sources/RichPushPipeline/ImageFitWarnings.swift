import Foundation
import Synchronization
import RichPushCore
import RichPushPayload
import RichPushImaging

/// Warnings for the author about how a source image fits its variant's box: `story_crop_heavy` when a `cover` fit
/// (the story's 2:3) cuts away more than `maximumCroppedShare` of the image, and `image_upscaled` when the image is
/// smaller than the box by more than `maximumUpscale`, so the phone blows it up. They need the source's upright
/// size, which a media result carries once the source was fetched; costs a few multiplications per result.
enum ImageFitWarnings {
    /// More than this share of the image cut away by the crop is worth a warning.
    static let maximumCroppedShare = 0.4
    /// A box larger than the image by more than this factor (along the side that fills it) is worth a warning.
    static let maximumUpscale = 1.5

    /// The warnings for `media`, rendered as `variant`; none when its source size is unknown.
    static func diagnostics(for media: MediaResult, variant: ImageVariant) -> [Diagnostic] {
        guard let source = media.published?.sourceSize else { return [] }
        return diagnostics(source: source, variant: variant, pointer: media.pointer)
    }

    /// The warnings for a source of `source`'s upright size rendered as `variant`, at `pointer`.
    static func diagnostics(source: PixelSize, variant: ImageVariant, pointer: String) -> [Diagnostic] {
        guard source.width > 0, source.height > 0, variant.width > 0, variant.height > 0 else { return [] }
        // The texts are built only for a warning: most results have none.
        var image: String { "\(source.width)×\(source.height)" }
        var found: [Diagnostic] = []
        if variant.fit == .cover {
            let sourceAspect = Double(source.width) / Double(source.height)
            let boxAspect = Double(variant.width) / Double(variant.height)
            let keptShare = min(sourceAspect, boxAspect) / max(sourceAspect, boxAspect)
            let cutShare = 1 - keptShare
            if cutShare > maximumCroppedShare {
                let kept = sourceAspect > boxAspect
                    ? "\(Int((Double(source.height) * boxAspect).rounded()))×\(source.height)"
                    : "\(source.width)×\(Int((Double(source.width) / boxAspect).rounded()))"
                found.append(Diagnostic(
                    severity: .warning, pointer: pointer, code: DiagnosticCode.storyCropHeavy.rawValue,
                    message: "the \(variant.name) variant's \(ratio(variant)) cover crop cuts away \(percent(cutShare)) of this \(image) image: only its middle \(kept) is shown"))
            }
        }
        // Cover fills the box, so its larger factor counts; contain fits inside it, so its smaller one does.
        let widthFactor = Double(variant.width) / Double(source.width)
        let heightFactor = Double(variant.height) / Double(source.height)
        let upscale = variant.fit == .cover ? max(widthFactor, heightFactor) : min(widthFactor, heightFactor)
        if upscale > maximumUpscale {
            found.append(Diagnostic(
                severity: .warning, pointer: pointer, code: DiagnosticCode.imageUpscaled.rawValue,
                message: "the \(image) image is \(upscale.decimalString(fractionDigits: 1))× smaller than the \(variant.name) variant's \(variant.width)×\(variant.height), so the phone blows it up and it looks blurred"))
        }
        return found
    }

    /// The warnings of `diagnostics(for:variant:)`, remembered by all they depend on (the source's size and the
    /// variant's box): each warm story page of a campaign would otherwise build the same texts again (2.7% of the
    /// CPU of the load suite's warm jobs). Bounded: the table starts over at `capacity` entries.
    final class Memo: Sendable {
        private struct Fit: Hashable {
            let source: PixelSize
            let variant: String
            let width: Int
            let height: Int
            let fit: ImageVariant.Fit
        }

        private let warnings = Mutex<[Fit: [Diagnostic]]>([:])
        let capacity: Int

        init(capacity: Int = 4_096) {
            self.capacity = capacity
        }

        func diagnostics(for media: MediaResult, variant: ImageVariant) -> [Diagnostic] {
            guard let source = media.published?.sourceSize else { return [] }
            let fit = Fit(source: source, variant: variant.name, width: variant.width, height: variant.height, fit: variant.fit)
            let found: [Diagnostic]
            if let remembered = warnings.withLock({ $0[fit] }) {
                found = remembered
            } else {
                found = ImageFitWarnings.diagnostics(source: source, variant: variant, pointer: "")
                warnings.withLock { table in
                    if table.count >= capacity { table.removeAll(keepingCapacity: true) }
                    table[fit] = found
                }
            }
            guard !found.isEmpty else { return [] }
            return found.map { warning in
                var warning = warning
                warning.pointer = media.pointer
                return warning
            }
        }

        /// Entries held now (tests check the bound with it).
        var count: Int { warnings.withLock { $0.count } }
    }

    private static func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))%" }

    /// The box's aspect ratio in lowest terms, such as 2:3.
    private static func ratio(_ variant: ImageVariant) -> String {
        func divisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : divisor(b, a % b) }
        let common = divisor(variant.width, variant.height)
        return "\(variant.width / common):\(variant.height / common)"
    }
}
