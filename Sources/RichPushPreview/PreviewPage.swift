import Foundation
import RichPushCore

/// The story preview page: plain HTML, CSS and a little JavaScript, compiled into the binary (no framework, no
/// CDN, no request to anywhere but the serving `richpush serve`).
///
/// Served as is, the page shows a form that posts to `/v1/preview`. With a preview document embedded
/// (`validate --html`), it hides the form and renders the document, so the file is self-contained. Either way the
/// script renders only a `StoryPreview` document, and writes text with `textContent`, never as markup.
package enum PreviewPage {
    /// What the page may load, in a `<meta>` element so that the file from `validate --html` carries it too: its own
    /// inline style and script, `data:` images, and requests to the server it came from; nothing else.
    package static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'"

    /// The headers `serve` sends with the page: the same policy plus `frame-ancestors 'none'` (which browsers honour
    /// only in a header), and `X-Frame-Options` for browsers without CSP, so no other site can frame the form.
    package static let servedHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy + "; frame-ancestors 'none'"),
        ("X-Frame-Options", "DENY"),
    ]

    /// The page; `embedding` is a `StoryPreview` document to render at once, or nil for the form. Costs one copy of
    /// the document, with every `<` written as `\u003c` (valid JSON, since `<` only occurs inside strings) so that no
    /// value can close its script element or open a comment.
    package static func html(embedding document: JSONValue? = nil) -> String {
        var embedded = ""
        if let document {
            embedded = String(decoding: document.serialized(), as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
            <title>RichPush story preview</title>
            <style>\(style)</style>
            </head>
            <body>
            <header><h1>RichPush story preview</h1><p>What the phone will show, from the same report as <code>richpush validate --format json</code>.</p></header>
            <form id="preview-form">
            <label for="document">Payload in any shape (raw APNs, envelope, Pushwoosh, FCM, OneSignal, Pushfa), or a list of image URLs, one per line</label>
            <textarea id="document" name="document" rows="10" spellcheck="false" placeholder='{"aps":{"alert":{"title":"…"}},"pw_stories":{"pages":[{"image":"https://…","title":"…"}]}}'></textarea>
            <div class="controls">
            <input type="file" id="upload" accept=".json,.txt,.ndjson,application/json,text/plain">
            <input type="password" id="token" autocomplete="off" placeholder="Access token (serve --auth-token-file)" aria-label="Access token">
            <button type="submit" id="submit">Preview</button>
            <span id="status" role="status"></span>
            </div>
            </form>
            <main id="preview"></main>
            <script type="application/json" id="preview-data">\(embedded)</script>
            <script>\(script)</script>
            </body>
            </html>

            """
    }
}
