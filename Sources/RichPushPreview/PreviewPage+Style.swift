extension PreviewPage {
    /// The page's CSS: a phone-sized screen (the story full-screen, or the lock screen with a plain alert card, or a
    /// not-JSON or rejected state), texts that wrap and clamp inside their card, findings in red (error), amber
    /// (warning) or grey (info).
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
        .phone { width: 320px; height: 660px; flex: none; border-radius: 40px; padding: 12px; background: #111; box-shadow: 0 2px 10px rgba(0,0,0,.25); }
        .phone > * { width: 100%; height: 100%; border-radius: 30px; overflow: hidden; position: relative; }
        .lock { padding: 40px 12px 20px; background: linear-gradient(160deg, #2c3e63, #6b4f7a 60%, #b0736b); color: #fff; }
        .lock .clock { text-align: center; font-size: 52px; font-weight: 300; margin-bottom: 22px; }
        .lock .note { position: absolute; left: 12px; right: 12px; bottom: 18px; font-size: 12px; text-align: center; opacity: .85; }
        .notification { display: flex; gap: 10px; background: rgba(245,245,247,.9); color: #111; border-radius: 16px; padding: 10px 12px; }
        .notification .icon { width: 22px; height: 22px; border-radius: 6px; background: #1565c0; flex: none; margin-top: 2px; }
        .notification .text { flex: 1; min-width: 0; }
        .notification .app { font-size: 11px; color: #666; text-transform: uppercase; }
        .notification .title, .notification .subtitle { font-weight: 600; font-size: 14px; }
        .notification .title, .notification .subtitle, .notification .body { overflow-wrap: anywhere; display: -webkit-box; -webkit-box-orient: vertical; overflow: hidden; }
        .notification .title, .notification .subtitle { -webkit-line-clamp: 2; }
        .notification .body { font-size: 14px; -webkit-line-clamp: 4; }
        .notification .thumbnail { width: 44px; height: 44px; border-radius: 6px; object-fit: cover; flex: none; }
        .android { display: flex; flex-direction: column; gap: 8px; max-width: 360px; padding: 10px; border-radius: 14px; background: #202124; }
        .android .notification { flex-wrap: wrap; background: #f1f3f4; border-radius: 20px; }
        .android .large-icon { width: 40px; height: 40px; border-radius: 50%; object-fit: cover; flex: none; }
        .android .big-picture { width: 100%; max-height: 180px; object-fit: cover; border-radius: 12px; }
        .notification.none { background: rgba(255,255,255,.2); color: #fff; font-style: italic; }
        .state { display: flex; flex-direction: column; justify-content: center; padding: 28px; gap: 12px; background: #fbe9e7; color: var(--error); }
        .state .state-title { font-size: 22px; font-weight: 700; }
        .state .state-reason { font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; color: var(--ink); overflow-wrap: anywhere; }
        .state.not-json { background: #eceff1; color: #37474f; }
        .viewer.story { background: #000; color: #fff; cursor: pointer; user-select: none; }
        .viewer .slide { position: absolute; inset: 0; display: none; }
        .viewer .slide.current { display: block; }
        .viewer .slide img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover; }
        .viewer .placeholder { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; text-align: center; padding: 24px; font-size: 12px; color: #cfd8dc; background: #263238; overflow-wrap: anywhere; }
        .viewer .progress { position: absolute; top: 14px; left: 12px; right: 12px; display: flex; gap: 4px; z-index: 2; }
        .viewer .progress .bar { flex: 1; height: 3px; border-radius: 2px; background: rgba(255,255,255,.4); overflow: hidden; }
        .viewer .progress .fill { display: block; height: 100%; width: 0; background: #fff; }
        .viewer .caption { position: absolute; left: 0; right: 0; bottom: 0; padding: 60px 16px 22px; background: linear-gradient(transparent, rgba(0,0,0,.75)); max-height: 75%; overflow: hidden; }
        .viewer .caption .title { font-weight: 700; font-size: 20px; line-height: 1.25; overflow-wrap: anywhere; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; overflow: hidden; }
        .viewer .caption .subtitle { margin-top: 4px; font-size: 14px; opacity: .9; overflow-wrap: anywhere; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 4; overflow: hidden; }
        .viewer .story-button { display: block; width: 100%; margin-top: 14px; background: #fff; color: #111; border-radius: 999px; text-align: center; padding: 8px 14px; }
        .viewer .story-button .button-title { display: block; font-weight: 700; font-size: 15px; overflow-wrap: anywhere; }
        .viewer .story-button .button-link { display: block; font: 11px/1.3 ui-monospace, Menlo, Consolas, monospace; color: #1565c0; font-weight: 400; overflow-wrap: anywhere; display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow: hidden; }
        .viewer .toast { position: absolute; left: 16px; right: 16px; top: 34px; display: none; background: rgba(0,0,0,.8); border-radius: 10px; padding: 8px 10px; font-size: 12px; overflow-wrap: anywhere; z-index: 3; }
        .viewer .toast.shown { display: block; }
        .viewer .end { position: absolute; inset: 0; display: none; align-items: center; justify-content: center; text-align: center; padding: 30px; background: rgba(0,0,0,.7); font-size: 15px; z-index: 4; }
        .viewer[data-finished="true"] .end { display: flex; }
        .summary { flex: 1; min-width: 280px; }
        .lock-preview { max-width: 360px; padding: 10px; border-radius: 14px; background: linear-gradient(160deg, #2c3e63, #6b4f7a 60%, #b0736b); }
        .summary h3 { margin: 14px 0 6px; font-size: 15px; }
        .page-details .facts { margin: 0 0 6px; font-size: 13px; color: var(--muted); }
        .bytes { margin: 0 0 12px; }
        .meter { height: 8px; border-radius: 4px; background: #e3e8ed; overflow: hidden; margin-top: 4px; max-width: 360px; }
        .meter span { display: block; height: 100%; background: #2e7d32; }
        .meter.near span { background: var(--warning); }
        .meter.over span { background: var(--error); }
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
