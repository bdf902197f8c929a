/// Bounds-checked big/little-endian reads over raw bytes; every read returns nil past the end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func byte(_ offset: Int) -> Int? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return Int(bytes[offset])
    }

    func uint16BigEndian(_ offset: Int) -> Int? {
        guard let high = byte(offset), let low = byte(offset + 1) else { return nil }
        return high << 8 | low
    }

    func uint16LittleEndian(_ offset: Int) -> Int? {
        guard let low = byte(offset), let high = byte(offset + 1) else { return nil }
        return high << 8 | low
    }

    func uint24LittleEndian(_ offset: Int) -> Int? {
        guard let low = uint16LittleEndian(offset), let high = byte(offset + 2) else { return nil }
        return high << 16 | low
    }

    func uint32BigEndian(_ offset: Int) -> Int? {
        guard let high = uint16BigEndian(offset), let low = uint16BigEndian(offset + 2) else { return nil }
        return high << 16 | low
    }

    func uint32LittleEndian(_ offset: Int) -> Int? {
        guard let low = uint16LittleEndian(offset), let high = uint16LittleEndian(offset + 2) else { return nil }
        return high << 16 | low
    }

    func matches(_ ascii: String, at offset: Int) -> Bool {
        let expected = Array(ascii.utf8)
        guard offset >= 0, offset + expected.count <= bytes.count else { return false }
        for (index, value) in expected.enumerated() where bytes[offset + index] != value { return false }
        return true
    }
}
