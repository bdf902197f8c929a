import RichPushCore
import RichPushPayload
import RichPushImaging
import RichPushHTTP
import RichPushCache
extension PreviewPage {
    /// The page's CSS: a phone-like lock screen card, story pages side by side at 2:3, findings in red (error), amber
    /// (warning) or grey (info) under the page they concern.
    static let style = #"""
        :root { --error: #c62828; --warning: #b26a00; --info: #546e7a; --ink: #1d232a; --muted: #5f6b76; }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 24px; font: 15px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #eef1f4; }
        header h1 { margin: 0 0 4px; font-size: 22px; }
        header p { margin: 0 0 16px; color: var(--muted); }
        form { background: #fff; border-radius: 12px; padding: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.08); max-width: 1100px; }
        form.hidden { display: none; }
        label { display: block; font-weight: 600; margin-bottom: 6px; }
        textarea { width: 100%; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; padding: 8px; border: 1px solid #c9d1d9; border-radius: 8px; }
        .controls { display: flex; gap: 12px; align-items: center; margin-top: 8px; }
        button { background: #1565c0; color: #fff; border: 0; border-radius: 8px; padding: 8px 18px; font-weight: 600; cursor: pointer; }
        #status { color: var(--muted); }
        #status.failed { color: var(--error); }
        .job { background: #fff; border-radius: 12px; padding: 16px 20px; margin-top: 20px; box-shadow: 0 1px 3px rgba(0,0,0,.08); max-width: 1400px; }
        .job h2 { margin: 0 0 12px; font-size: 18px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
        .badge { font-size: 12px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; padding: 2px 8px; border-radius: 999px; background: #e3e8ed; color: var(--muted); }
        .badge.enriched, .badge.passthrough, .badge.valid { background: #e3f4e6; color: #1b6e2c; }
        .badge.partial, .badge.fallback { background: #fff1d6; color: var(--warning); }
        .badge.rejected, .badge.invalid { background: #fde2e2; color: var(--error); }
        .row { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
        .phone { width: 300px; flex: none; border-radius: 36px; padding: 48px 14px 24px; min-height: 260px; background: linear-gradient(160deg, #2c3e63, #6b4f7a 60%, #b0736b); color: #fff; box-shadow: inset 0 0 0 6px #111; }
        .phone .clock { text-align: center; font-size: 44px; font-weight: 300; margin-bottom: 18px; }
        .notification { display: flex; gap: 10px; background: rgba(245,245,247,.86); color: #111; border-radius: 16px; padding: 10px 12px; }
        .notification .icon { width: 22px; height: 22px; border-radius: 6px; background: #1565c0; flex: none; margin-top: 2px; }
        .notification .text { flex: 1; min-width: 0; }
        .notification .app { font-size: 11px; color: #666; text-transform: uppercase; }
        .notification .title, .notification .subtitle { font-weight: 600; font-size: 14px; }
        .notification .body { font-size: 14px; overflow-wrap: anywhere; }
        .notification .thumbnail { width: 44px; height: 44px; border-radius: 6px; object-fit: cover; flex: none; }
        .notification.none { background: rgba(255,255,255,.2); color: #fff; font-style: italic; }
        .summary { flex: 1; min-width: 280px; }
        .bytes { margin: 0 0 12px; }
        .meter { height: 8px; border-radius: 4px; background: #e3e8ed; overflow: hidden; margin-top: 4px; max-width: 360px; }
        .meter span { display: block; height: 100%; background: #2e7d32; }
        .meter.near span { background: var(--warning); }
        .meter.over span { background: var(--error); }
        .stories { margin-top: 20px; }
        .stories h3 { margin: 0 0 8px; font-size: 15px; }
        .pages { display: flex; gap: 16px; overflow-x: auto; padding-bottom: 8px; }
        .page { width: 216px; flex: none; }
        .screen { position: relative; width: 216px; aspect-ratio: 2 / 3; border-radius: 14px; overflow: hidden; background: #263238; color: #fff; }
        .screen img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
        .screen .placeholder { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; text-align: center; padding: 16px; font-size: 12px; color: #cfd8dc; overflow-wrap: anywhere; }
        .screen .progress { position: absolute; top: 8px; left: 8px; right: 8px; display: flex; gap: 3px; }
        .screen .progress i { flex: 1; height: 3px; border-radius: 2px; background: rgba(255,255,255,.45); }
        .screen .progress i.current { background: #fff; }
        .screen .caption { position: absolute; left: 0; right: 0; bottom: 0; padding: 36px 12px 12px; background: linear-gradient(transparent, rgba(0,0,0,.72)); }
        .screen .caption .title { font-weight: 700; font-size: 16px; }
        .screen .caption .subtitle { font-size: 13px; opacity: .9; }
        .screen .button { display: block; margin-top: 8px; background: #fff; color: #111; border-radius: 999px; text-align: center; font-weight: 600; font-size: 13px; padding: 6px 10px; }
        .screen .duration { position: absolute; top: 18px; right: 10px; font-size: 11px; background: rgba(0,0,0,.45); border-radius: 999px; padding: 1px 7px; }
        .page.dropped .screen { background: repeating-linear-gradient(135deg, #fbe9e7, #fbe9e7 10px, #fff 10px, #fff 20px); color: var(--error); outline: 2px solid var(--error); }
        .page.dropped .screen .placeholder { color: var(--error); font-weight: 600; }
        .page .label { font-size: 12px; color: var(--muted); margin: 6px 0 4px; overflow-wrap: anywhere; }
        ul.findings { list-style: none; margin: 4px 0 0; padding: 0; }
        ul.findings li { border-left: 4px solid var(--info); background: #f3f5f7; padding: 4px 8px; margin-bottom: 4px; font-size: 12.5px; border-radius: 0 6px 6px 0; overflow-wrap: anywhere; }
        ul.findings li.error { border-color: var(--error); background: #fdecea; }
        ul.findings li.warning { border-color: var(--warning); background: #fff4e0; }
        ul.findings li .code { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
        ul.findings li .pointer { font-family: ui-monospace, Menlo, Consolas, monospace; color: var(--muted); }
        table.media { border-collapse: collapse; font-size: 12.5px; margin-top: 8px; }
        table.media th, table.media td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; overflow-wrap: anywhere; }
        details { margin-top: 14px; }
        pre { background: #f6f8fa; padding: 10px; border-radius: 8px; overflow-x: auto; font-size: 12px; }
        """#
}
