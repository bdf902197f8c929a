/// The names of the built-in image variants, which the payload layer assigns (a story page is rendered as `story`,
/// every other reference as `attachment` unless its job names another) and the imaging layer defines.
public enum VariantName {
    public static let attachment = "attachment"
    public static let story = "story"
}
