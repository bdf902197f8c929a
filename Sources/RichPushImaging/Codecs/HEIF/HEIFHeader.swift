/// HEIF (HEIC, AVIF) header walk: the `meta` box's item list, properties and references, read without libheif.
///
/// It finds the primary item (`pitm`), its size (`ispe`, then `clap` and `irot` as libheif applies them), its alpha
/// plane (an `auxl` item) and ICC profile (`colr`), and enforces the limits on every item a decode of the primary
/// image would decode: the primary image, its grid tiles and its alpha plane. EXIF orientation is never read: HEIF
/// orients with `irot`/`imir`, which libheif applies while decoding, so the probe reports orientation 1.
///
/// `ispe` is only a claim: every coded item libheif would decode has its coded size read from its HEVC sequence
/// parameter sets or AV1 sequence headers (`HEIFCodedSize`) and compared with its `ispe`, and a grid's descriptor
/// with the grid's `ispe`; any disagreement is corrupt. The limits then hold for what the decoders really allocate.
enum HEIFHeader {
    /// Most grid tiles accepted in one image (primary and alpha plane together). An iPhone's 12 MP photo has 48
    /// tiles of 512x512 and a 48 MP one 192; libheif decodes each tile with a new decoder, so a file of thousands
    /// of tiny tiles costs far more than its pixels.
    static let maximumGridTiles = 1024

    /// Item types libheif 1.15 decodes here: HEVC (libde265), AV1 (dav1d) and grids of either.
    private static let codedTypes: [String: ImageFormat] = ["hvc1": .heic, "av01": .avif]

    static func probe(_ reader: ByteReader, sniffed: ImageFormat, limits: ImageLimits) throws(ImageError) -> ImageProbe {
        guard let meta = try metaBox(in: reader) else {
            throw .unsupportedFormat(detected: "\(sniffed.rawValue.uppercased()) without a still image (an image sequence)")
        }
        let items = try HEIFItemTable(reader, meta: meta)
        guard let primary = items.primary else { throw .corrupt(reason: "HEIF has no primary item (pitm)") }
        let format = try codedFormat(of: primary, in: items)

        var cost = DecodeCost()
        try checkDecodeCost(of: primary, in: items, limits: limits, cost: &cost)
        let alpha = try items.alphaPlane(of: primary)
        if let alpha { try checkDecodeCost(of: alpha, in: items, limits: limits, cost: &cost) }

        guard let codedSize = items.imageSize(primary) else { throw .corrupt(reason: "HEIF primary image has no ispe") }
        var (width, height) = codedSize
        if items.types[primary] == "grid" {
            let layout = try items.gridLayout(of: primary)
            (width, height) = (layout.width, layout.height)
        }
        // libheif applies the transformations in the order listed: clap crops, irot turns (imir keeps the size).
        for property in items.properties(of: primary) {
            if property.type == "clap", let crop = items.cleanApertureSize(property, width: width, height: height) {
                (width, height) = crop
            } else if property.type == "irot", let angle = reader.byte(property.body.lowerBound), angle & 1 == 1 {
                (width, height) = (height, width)
            }
        }
        var probe = ImageProbe(format: format, width: width, height: height, hasAlpha: alpha != nil, isAnimated: false,
                               orientation: 1, hasICCProfile: hasICCProfile(primary, in: items, reader: reader))
        probe.codedPixels = cost.codedPixels
        return probe
    }

    /// What the checks so far found libheif would decode: grid tiles (primary and alpha plane together), the
    /// coded pixels of every picture, and the coded sizes already read (shared tile data is parsed once).
    private struct DecodeCost {
        var tiles = 0
        var codedPixels = 0
        var parsed: [[Int]: [HEIFCodedSize]] = [:]
        /// NAL units and OBUs read so far (`HEIFCodedSize.maximumUnits`).
        var units = 0
    }

    /// Whether the image has an ICC `colr` box; a grid without one takes its first tile's, as libheif does.
    private static func hasICCProfile(_ item: Int, in items: HEIFItemTable, reader: ByteReader) -> Bool {
        func iccBox(_ item: Int) -> Bool? {
            guard let colr = items.properties(of: item).first(where: { $0.type == "colr" }) else { return nil }
            return reader.matches("prof", at: colr.body.lowerBound) || reader.matches("rICC", at: colr.body.lowerBound)
        }
        if let own = iccBox(item) { return own }
        guard items.types[item] == "grid", let tile = items.references("dimg", from: item).first else { return false }
        return iccBox(tile) ?? false
    }

    /// HEIC or AVIF by the primary item's coding (a grid by its first tile's), whatever the brands said.
    private static func codedFormat(of item: Int, in items: HEIFItemTable) throws(ImageError) -> ImageFormat {
        guard let type = items.types[item] else { throw .corrupt(reason: "HEIF primary item \(item) has no item info") }
        if let format = codedTypes[type] { return format }
        guard type == "grid" else { throw .unsupportedFormat(detected: "HEIF with a '\(type)' primary image") }
        guard let tile = items.references("dimg", from: item).first else { throw .corrupt(reason: "HEIF grid has no tiles") }
        guard let tileType = items.types[tile], let format = codedTypes[tileType] else {
            throw .unsupportedFormat(detected: "HEIF grid of '\(items.types[tile] ?? "missing")' tiles")
        }
        return format
    }

    /// Checks the size of an item libheif will decode, and when it is a grid, its canvas and each of its tiles.
    private static func checkDecodeCost(of item: Int, in items: HEIFItemTable, limits: ImageLimits,
                                        cost: inout DecodeCost) throws(ImageError) {
        guard let (width, height) = items.imageSize(item) else { throw .corrupt(reason: "HEIF image item \(item) has no ispe") }
        try limits.check(width: width, height: height)
        guard items.types[item] == "grid" else {
            cost.codedPixels += try verifiedCodedSize(of: item, width: width, height: height, in: items, cost: &cost).pixels
            return
        }
        // libheif allocates the canvas the grid descriptor asks for, so it must be the size the ispe claims.
        let layout = try items.gridLayout(of: item)
        try limits.check(width: layout.width, height: layout.height)
        guard layout.width == width, layout.height == height else {
            throw .corrupt(reason: "HEIF grid \(item) is \(layout.width)x\(layout.height) by its descriptor but \(width)x\(height) by its ispe")
        }
        let references = items.references("dimg", from: item)
        cost.tiles += references.count
        if cost.tiles > maximumGridTiles {
            throw .corrupt(reason: "HEIF grid has \(cost.tiles) tiles, more than the \(maximumGridTiles) accepted")
        }
        guard references.count == layout.rows * layout.columns else {
            throw .corrupt(reason: "HEIF grid has \(references.count) tiles for \(layout.rows)x\(layout.columns)")
        }
        // The tiles cover the canvas and may overhang its right and bottom edges by less than one tile.
        var tilePixels = 0, tileWidth = 0, tileHeight = 0
        var tileSizes: [(tile: Int, width: Int, height: Int)] = []
        for tile in references {
            guard items.types[tile].map({ codedTypes[$0] != nil }) == true else {
                throw .corrupt(reason: "HEIF grid tile \(tile) is not a coded image")
            }
            guard let size = items.imageSize(tile) else { throw .corrupt(reason: "HEIF grid tile \(tile) has no ispe") }
            try limits.check(width: size.width, height: size.height)
            tilePixels += size.width * size.height
            (tileWidth, tileHeight) = (max(tileWidth, size.width), max(tileHeight, size.height))
            tileSizes.append((tile, size.width, size.height))
        }
        if tilePixels > (layout.width + tileWidth) * (layout.height + tileHeight) {
            throw .corrupt(reason: "HEIF grid tiles hold \(tilePixels) pixels, more than its \(layout.width)x\(layout.height) canvas needs")
        }
        // Each tile is a decoder run at its coded size: together they are the decode's cost, under the pixel limit.
        for (tile, width, height) in tileSizes {
            cost.codedPixels += try verifiedCodedSize(of: tile, width: width, height: height, in: items, cost: &cost).pixels
        }
        if cost.codedPixels > limits.maximumPixels {
            throw .corrupt(reason: "HEIF grid tiles hold \(cost.codedPixels) coded pixels, more than the \(limits.maximumPixels)-pixel limit")
        }
    }

    /// The largest picture a coded item (`hvc1`, `av01`) declares in its decoder configuration or its data, after
    /// checking that each agrees with its `ispe` (`HEIFCodedSize.agrees`). Never decodes anything.
    private static func verifiedCodedSize(of item: Int, width: Int, height: Int, in items: HEIFItemTable,
                                          cost: inout DecodeCost) throws(ImageError) -> HEIFCodedSize {
        // libheif 1.15 hands an item without data to its decoder as is; dav1d refuses it and leaks (heif fuzzing).
        guard let data = items.dataRange(item) else { throw .corrupt(reason: "HEIF image item \(item) has no coded data") }
        let isAV1 = items.types[item] == "av01"
        guard let configuration = items.properties(of: item).first(where: { $0.type == (isAV1 ? "av1C" : "hvcC") }) else {
            throw .corrupt(reason: "HEIF image item \(item) has no \(isAV1 ? "av1C" : "hvcC") decoder configuration")
        }
        let key = [configuration.body.lowerBound, configuration.body.upperBound, data.lowerBound, data.upperBound]
        let sizes: [HEIFCodedSize]
        if let known = cost.parsed[key] {
            sizes = known
        } else {
            sizes = isAV1 ? try HEIFCodedSize.av1(configuration: configuration.body, data: data, in: items.reader, units: &cost.units)
                          : try HEIFCodedSize.hevc(configuration: configuration.body, data: data, in: items.reader, units: &cost.units)
            cost.parsed[key] = sizes
        }
        for size in sizes where !size.agrees(withWidth: width, height: height, isAV1: isAV1) {
            throw .corrupt(reason: "HEIF image item \(item) is coded as \(size.width)x\(size.height) but its ispe says \(width)x\(height)")
        }
        return sizes.max { $0.pixels < $1.pixels }!
    }

    /// The contents of the file's `meta` box. HEIF has exactly one: libheif 1.15 reads the last one and this walk
    /// would check another, so a second one is corrupt (heif fuzzing: a HEIC grid's meta box followed by an
    /// AVIF's, which libheif decoded unchecked).
    private static func metaBox(in reader: ByteReader) throws(ImageError) -> Range<Int>? {
        let boxes = try HEIFBox.children(of: 0..<reader.count, in: reader)
        try HEIFBox.requireAtMostOne(of: ["meta"], among: boxes, in: nil)
        return boxes.first { $0.type == "meta" }?.body
    }
}
