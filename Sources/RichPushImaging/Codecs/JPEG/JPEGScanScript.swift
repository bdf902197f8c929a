import CRichPushImage

/// A progressive JPEG's scan script, made of one `Plan` per component: the DC of every component in one scan at full
/// precision, then each component's AC scans, then the refinement scans that send their low bits.
///
/// Which coefficient a scan carries depends only on its own component, band and bits, so the size of each scan in
/// a file is the size it has in any other script with the same plan for that component (`JPEGScanOptimizer`
/// combines plans on this).
struct JPEGScanScript: Hashable, Sendable {
    /// One scan: its components, its band of zig-zag positions, and the bits it sends (successive approximation,
    /// ITU T.81 G.1.1.1.2: the first scan of a band sends each value shifted right by `lowBit`; a refinement,
    /// with `previousLowBit` set, sends the bit `lowBit` of the values whose higher bits were sent).
    struct Scan: Hashable, Sendable {
        var components: [Int]
        var band: ClosedRange<Int>
        var previousLowBit: Int
        var lowBit: Int
    }

    /// How one component's AC coefficients are sent: as one band or split after the zig-zag position `split`, with
    /// the lowest `refinedBits` bits of each value held back for refinement scans of the whole band, one bit each.
    /// Low frequencies alone suit flat images; text and line art gain from refinement, whose first scans code the
    /// many small values as zero runs.
    struct Plan: Hashable, Sendable {
        var split: Int?
        var refinedBits: Int

        /// The component's AC scans: the first ones, then its refinements.
        func scans(component: Int) -> (first: [Scan], refinements: [Scan]) {
            let bands = split.map { [1...$0, ($0 + 1)...63] } ?? [1...63]
            let first = bands.map { Scan(components: [component], band: $0, previousLowBit: 0, lowBit: refinedBits) }
            let refinements = stride(from: refinedBits, to: 0, by: -1).map {
                Scan(components: [component], band: 1...63, previousLowBit: $0, lowBit: $0 - 1)
            }
            return (first, refinements)
        }
    }

    let scans: [Scan]

    /// `plans`: one per component of the file, in order.
    init(plans: [Plan]) {
        let acScans = plans.enumerated().map { $0.element.scans(component: $0.offset) }
        scans = [Scan(components: Array(plans.indices), band: 0...0, previousLowBit: 0, lowBit: 0)]
            + acScans.flatMap(\.first) + acScans.flatMap(\.refinements)
    }

    /// The script as libjpeg reads it (`jpeg_compress_struct.scan_info`).
    var scanInfo: [jpeg_scan_info] {
        scans.map { scan in
            var info = jpeg_scan_info()
            info.comps_in_scan = Int32(scan.components.count)
            let indices = scan.components.map(Int32.init) + [0, 0, 0, 0]
            info.component_index = (indices[0], indices[1], indices[2], indices[3])
            info.Ss = Int32(scan.band.lowerBound)
            info.Se = Int32(scan.band.upperBound)
            info.Ah = Int32(scan.previousLowBit)
            info.Al = Int32(scan.lowBit)
            return info
        }
    }

    /// The bytes of each scan of a libjpeg-written `jpeg`, in order: its SOS segment and entropy-coded data, and the
    /// Huffman tables (DHT) written just before it, which with optimised tables belong to that scan alone. Nil when
    /// the bytes are not a file of that shape.
    static func scanSizes(of jpeg: [UInt8]) -> [Int]? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var sizes: [Int] = [], tables = 0, offset = 2
        while offset + 1 < jpeg.count {
            guard jpeg[offset] == 0xFF else { return nil }
            let marker = jpeg[offset + 1]
            if marker == 0xD9 { return sizes }
            guard offset + 3 < jpeg.count else { return nil }
            let segment = 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
            if marker == 0xC4 {
                tables += segment
                offset += segment
            } else if marker == 0xDA {
                // Entropy-coded data runs to the next marker: 0xFF followed by neither a stuffed zero nor a restart.
                let end = jpeg.withUnsafeBytes { JPEGHeader.endOfEntropyCodedData(ByteReader(bytes: $0), from: offset + segment) }
                sizes.append(tables + end - offset)
                tables = 0
                offset = end
            } else {
                offset += segment
            }
        }
        return nil
    }
}
