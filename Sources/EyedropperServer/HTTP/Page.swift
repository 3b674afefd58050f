import Hummingbird

/// `GET /`: one self-contained page (no external assets): the live picture with a marker at each
/// `--at` point and at the last click; a click samples the point under the pointer through the
/// sample endpoint and shows its colour, mean +- sd and clipped channels beside the picture; a plot
/// of each point's mean over the last minute from the event stream, its sd as a band; the camera's
/// controls, built from the listing, with a Lock button. With `--profile`, each sample's
/// calibrated colour beside the camera's, and with `--target` its ΔE and a PASS or FAIL mark big
/// enough to read across a bench. The script is `Page.script`. Open to anyone, with or without a
/// token: the same static text for everyone; the script takes the token from `#token=`.
enum Page {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Eyedropper</title>
    <style>
      :root { --ink: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --card: #fff; --back: #f0f0f2; }
      * { box-sizing: border-box; }
      body { font: 14px/1.4 system-ui, sans-serif; color: var(--ink); background: var(--back); margin: 0; padding: 16px;
             display: flex; gap: 16px; align-items: flex-start; }
      h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 8px; font-weight: 600; }
      .card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
      #main { flex: 1 1 auto; min-width: 0; display: flex; flex-direction: column; gap: 12px; max-width: 62vw; }
      #side { flex: 0 0 430px; display: flex; flex-direction: column; gap: 12px; }
      #stage { position: relative; align-self: flex-start; line-height: 0; max-width: 100%; }
      #picture { max-width: 100%; cursor: crosshair; display: block; border-radius: 4px; background: #000; min-width: 320px; min-height: 180px; }
      .marker { position: absolute; width: 22px; height: 22px; margin: -11px 0 0 -11px; border-radius: 50%; pointer-events: none;
                border: 3px solid var(--c, #fff); box-shadow: 0 0 0 1px #fff, 0 0 0 2px rgba(0,0,0,.6); }
      .marker span { position: absolute; left: 14px; top: -16px; font: 600 11px/16px system-ui, sans-serif; color: #fff;
                     background: var(--c); padding: 0 5px; border-radius: 3px; box-shadow: 0 0 0 1px rgba(0,0,0,.5); white-space: nowrap; }
      .marker.click { --c: #fff; border-radius: 0; border: none; box-shadow: none; }
      .marker.click::before, .marker.click::after { content: ""; position: absolute; background: #fff; box-shadow: 0 0 0 1px rgba(0,0,0,.8); }
      .marker.click::before { left: 10px; top: 0; width: 2px; height: 22px; }
      .marker.click::after { left: 0; top: 10px; width: 22px; height: 2px; }
      #plot-card { display: flex; flex-direction: column; gap: 6px; }
      #plot-head { display: flex; justify-content: space-between; align-items: center; }
      #plot-head h2 { margin: 0; }
      #plot { width: 100%; height: 200px; display: block; }
      #legend { display: flex; flex-wrap: wrap; gap: 4px 14px; color: var(--muted); font-size: 12px; }
      #legend i { display: inline-block; width: 12px; height: 3px; vertical-align: middle; margin-right: 4px; }
      .reading { display: flex; gap: 12px; align-items: flex-start; }
      .swatch { flex: 0 0 auto; width: 72px; height: 72px; border: 1px solid var(--line); border-radius: 6px; }
      .swatch.small { width: 40px; height: 40px; }
      .numbers { font-family: ui-monospace, monospace; font-size: 12px; display: flex; flex-direction: column; gap: 1px; min-width: 0; }
      .numbers .head { font: 600 13px system-ui, sans-serif; }
      .numbers .quiet { color: var(--muted); }
      .numbers .stats, #stats { white-space: nowrap; font-size: 11.5px; }
      #points { display: flex; flex-direction: column; gap: 10px; }
      .tag { display: inline-block; min-width: 18px; text-align: center; color: #fff; border-radius: 3px; padding: 0 4px; margin-right: 4px; font-size: 11px; }
      #history { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 4px 12px; }
      #history li { display: flex; gap: 6px; align-items: center; font-family: ui-monospace, monospace; font-size: 12px; }
      #history span.chip { width: 14px; height: 14px; border: 1px solid var(--line); border-radius: 3px; display: inline-block; }
      #controls-head { display: flex; justify-content: space-between; align-items: center; margin-bottom: 8px; }
      #controls-head h2 { margin: 0; }
      .control { display: grid; grid-template-columns: 150px 1fr 44px; gap: 2px 8px; align-items: center; padding: 3px 0; }
      .control label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: 12px; }
      .control input[type=range], .control select { width: 100%; }
      .control input[type=checkbox] { justify-self: start; margin: 0; }
      .control output { font-family: ui-monospace, monospace; font-size: 12px; text-align: right; }
      .control .note { grid-column: 2 / 4; font-size: 11px; color: var(--muted); }
      .control .note:empty { display: none; }
      .control.inactive label, .control.inactive output { color: #aaa; }
      .control.inactive { opacity: .6; }
      button { font: inherit; padding: 3px 12px; border: 1px solid var(--line); border-radius: 5px; background: #fafafa; cursor: pointer; }
      button:hover { background: #eee; }
      .error { color: #b00020; }
      #status { color: var(--muted); font-size: 12px; }
      #access { font-weight: 600; background: #fdecee; border: 1px solid #f3b7bf; border-radius: 6px; padding: 8px 12px; }
      #access[hidden] { display: none; }
      #warnings { margin: 6px 0 0; padding-left: 18px; font-size: 12px; color: #8a5a00; }
      /* --profile and --target: the calibrated colour, ΔE and a verdict readable from metres away */
      #calibration { font-size: 12px; margin: -2px 0 10px; display: flex; flex-direction: column; gap: 2px; }
      #calibration:empty { display: none; }
      #calibration .target { display: flex; align-items: center; gap: 6px; font-family: ui-monospace, monospace; }
      #calibration .chip { width: 14px; height: 14px; border: 1px solid var(--line); border-radius: 3px; display: inline-block; }
      #calibration ul { margin: 2px 0 0; padding-left: 18px; color: #8a5a00; }
      .calibrated { display: flex; flex-direction: column; gap: 8px; margin-top: 8px; padding-top: 8px; border-top: 1px dashed var(--line); }
      .calibrated .pair { display: flex; gap: 12px; align-items: center; }
      .calibrated figure { margin: 0; display: flex; flex-direction: column; align-items: center; gap: 2px; font-size: 11px; color: var(--muted); }
      .calibrated .swatch { width: 64px; height: 64px; }
      .calibrated .values { display: flex; flex-direction: column; gap: 2px; min-width: 0; }
      .calibrated .cal-hex { font: 700 24px/1.1 ui-monospace, monospace; }
      .calibrated .cal-lab { font: 600 16px/1.2 ui-monospace, monospace; white-space: nowrap; }
      .calibrated .cal-gamut { font-size: 12px; color: #8a5a00; }
      .calibrated .cal-gamut:empty { display: none; }
      #points .calibrated + .reading { border-top: 1px solid var(--line); padding-top: 10px; }
      .verdict { display: flex; align-items: center; justify-content: space-between; gap: 12px; padding: 6px 16px; border-radius: 8px; color: #fff; }
      .verdict[hidden] { display: none; }
      .verdict.pass { background: #1b7a36; }
      .verdict.fail { background: #c21f1f; }
      .verdict .mark { font: 900 64px/1 system-ui, sans-serif; letter-spacing: .04em; }
      .verdict .score { display: flex; flex-direction: column; align-items: flex-end; gap: 4px; }
      .verdict .delta-e { font: 700 30px/1 ui-monospace, monospace; white-space: nowrap; }
      .verdict .tolerance { font-size: 13px; white-space: nowrap; }
    </style>
    </head>
    <body>
    <div id="main">
      <div id="access" class="error" hidden></div>
      <div id="stage"><img id="picture" alt="live picture: click to sample"></div>
      <div id="plot-card" class="card">
        <div id="plot-head">
          <h2>Mean over the last minute, ± sd</h2>
          <label>plot <select id="channel">
            <option value="luma">luma (BT.709 weights)</option><option value="0">R</option><option value="1">G</option><option value="2">B</option>
          </select></label>
        </div>
        <canvas id="plot"></canvas>
        <div id="legend"></div>
      </div>
      <div id="status"></div>
    </div>
    <div id="side">
      <div class="card">
        <h2>Clicked</h2>
        <div id="clicked" class="reading">
          <div id="swatch" class="swatch"></div>
          <div class="numbers">
            <div class="head">hex <span id="hex">-</span> · RGB <span id="rgb">-</span></div>
            <div id="stats" class="quiet"></div>
            <div id="clipped" class="quiet"></div>
            <div class="quiet">at <span id="coords">-</span></div>
            <div id="message"></div>
          </div>
        </div>
        <ol id="history"></ol>
      </div>
      <div class="card">
        <h2>Points (--at)</h2>
        <div id="calibration"></div>
        <div id="points"></div>
      </div>
      <div class="card">
        <div id="controls-head"><h2>Camera controls</h2><button id="lock" hidden title="Switch automatic exposure, white balance and gain off at the values they settled on">Lock</button></div>
        <div id="controls-note" class="quiet"></div>
        <div id="controls"></div>
        <ul id="warnings"></ul>
      </div>
    </div>
    <script>
    """# + script + #"""
    </script>
    </body>
    </html>
    """#
}

/// `GET /`: the page.
struct PageController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: Page.html)))
        }
    }
}
