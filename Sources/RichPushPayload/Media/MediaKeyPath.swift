/// One configured media key (`PayloadOptions.mediaKeys`), split once into its segments: dotted from the payload root,
/// a segment ending in `[]` walks every element of that array (`pw_stories.pages[].image`). Discovery walks it per
/// job and the renderer matches pointers against it, so neither splits the text again.
package struct MediaKeyPath: Sendable, Hashable {
    package enum Segment: Sendable, Hashable {
        /// The member of that name.
        case member(String)
        /// Every element of the array held by the member of that name.
        case everyElement(of: String)

        /// The member the segment reads.
        package var name: String {
            switch self {
            case .member(let name), .everyElement(of: let name): name
            }
        }
    }

    /// The key path as configured.
    package let text: String
    package let segments: [Segment]

    package init(_ text: String) {
        self.text = text
        segments = text.split(separator: ".").map { part in
            part.hasSuffix("[]") ? .everyElement(of: String(part.dropLast(2))) : .member(String(part))
        }
    }

    /// Whether a pointer's `tokens` lead exactly to this path's end (an array segment matching one element index).
    package func ends(at tokens: [String]) -> Bool {
        var remaining = tokens[...]
        for segment in segments {
            switch segment {
            case .everyElement(of: let name):
                guard remaining.count >= 2, remaining.first == name, Int(remaining.dropFirst().first ?? "") != nil else {
                    return false
                }
                remaining = remaining.dropFirst(2)
            case .member(let name):
                guard remaining.first == name else { return false }
                remaining = remaining.dropFirst()
            }
        }
        return remaining.isEmpty
    }
}
