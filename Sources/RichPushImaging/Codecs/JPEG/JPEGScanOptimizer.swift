import Foundation

/// Rewrites a JPEG losslessly in the scan script that makes it smallest, as mozjpeg's `optimize_scans` does: the same
/// coefficients, so the same pixels and score, in no more bytes than the file it is given, and usually fewer than
/// libjpeg's simple progression or baseline, whichever is smaller (docs/benchmarks.md, "Scan scripts").
///
/// Each candidate script is written once (`JPEGTranscoder`), and the size of each of its scans read from the file.
/// Every component then takes the plan whose scans came out smallest, from whichever candidate measured it, and
/// that combination is written when it is none of the candidates. Cost: an entropy decode and two or three
/// progressive writes with optimised Huffman tables; the coefficients held meanwhile (3 bytes a pixel at 4:2:0, 6
/// at 4:4:4) are less than a `JPEGTransform`'s `workingBytes`.
enum JPEGScanOptimizer {
    /// The candidate scripts' plans, luma and chroma: chosen on the 56 images of `scripts/quality_peers.py` from
    /// mozjpeg's search space (bands split after position 2, 5, 8, 12 or 18 or not at all, 0-2 refined bits),
    /// greedily, each the one that most lowered the total. These two come close to what all 18 plans give
    /// (docs/benchmarks.md, "Scan scripts"): the first suits photographs and gradients, the second text and line art.
    static let candidates: [(luma: JPEGScanScript.Plan, chroma: JPEGScanScript.Plan)] = [
        (JPEGScanScript.Plan(split: 2, refinedBits: 0), JPEGScanScript.Plan(split: 2, refinedBits: 0)),
        (JPEGScanScript.Plan(split: 12, refinedBits: 1), JPEGScanScript.Plan(split: 8, refinedBits: 0)),
    ]

    /// The smallest of `jpeg` (one of our encoder's files) and its rewrites in the candidate scripts and in their
    /// best combination. The deadline stops the search with the smallest so far.
    static func smallest(_ jpeg: Data, iccProfile: [UInt8]?, budget: WorkBudget) throws(ImageError) -> Data {
        var smallest = jpeg
        var written: Set<JPEGScanScript> = []
        func write(_ script: JPEGScanScript, with transcoder: borrowing JPEGTranscoder) throws(ImageError) -> [UInt8] {
            try budget.check()
            let bytes = try transcoder.write(script, iccProfile: iccProfile)
            written.insert(script)
            if bytes.count < smallest.count { smallest = Data(bytes) }
            return bytes
        }
        do throws(ImageError) {
            try budget.check()
            let transcoder = try JPEGTranscoder(jpeg)
            var measured: [JPEGScanScript.Scan: Int] = [:]
            for script in candidateScripts(components: transcoder.components) {
                record(script, writtenAs: try write(script, with: transcoder), into: &measured)
            }
            let combined = combination(components: transcoder.components, measured: measured)
            if !written.contains(combined) { _ = try write(combined, with: transcoder) }
        } catch .deadlineExceeded {
            // Every file kept so far is complete; the deadline is the caller's to report.
        }
        return smallest
    }

    /// The candidates as scripts for a file of `components` components: the luma plan, then the chroma plan for each
    /// other component.
    static func candidateScripts(components: Int) -> [JPEGScanScript] {
        candidates.map { JPEGScanScript(plans: [$0.luma] + Array(repeating: $0.chroma, count: components - 1)) }
    }

    /// Adds the size of each scan of `bytes`, a file written in `script`, to `measured`. A file whose scans cannot
    /// be told apart adds nothing: it still counts whole, it just cannot be combined.
    static func record(_ script: JPEGScanScript, writtenAs bytes: [UInt8], into measured: inout [JPEGScanScript.Scan: Int]) {
        guard let sizes = JPEGScanScript.scanSizes(of: bytes), sizes.count == script.scans.count else { return }
        for (scan, size) in zip(script.scans, sizes) { measured[scan] = size }
    }

    /// The script in which each component takes the candidate plan whose scans measured smallest (the first
    /// candidate's where none was measured).
    static func combination(components: Int, measured: [JPEGScanScript.Scan: Int]) -> JPEGScanScript {
        JPEGScanScript(plans: (0..<components).map { component in
            let plans = candidates.map { component == 0 ? $0.luma : $0.chroma }
            return plans.min { cost($0, component: component, measured) < cost($1, component: component, measured) } ?? plans[0]
        })
    }

    /// The measured bytes of a component's scans under `plan`, or Int.max when one was not measured.
    private static func cost(_ plan: JPEGScanScript.Plan, component: Int, _ measured: [JPEGScanScript.Scan: Int]) -> Int {
        let scans = plan.scans(component: component)
        var total = 0
        for scan in scans.first + scans.refinements {
            guard let size = measured[scan] else { return .max }
            total += size
        }
        return total
    }
}
