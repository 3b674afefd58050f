extension Page {
    /// The page's script: markers, click sampling, the plot from the event stream, the controls
    /// panel, and with `--profile` the calibrated colour. Written against the per-sample
    /// statistics (`mean`, `sd`, `n`, `clipped`) and tolerating their absence, and against
    /// `calibrated`, `deltaE` and `pass`, showing nothing of them where a sample has none.
    /// Every request goes through `api` or `eventStream` (`accessScript`), which add the token when
    /// the page has one. `window.eyedropper` is a read-only hook for the browser test. One script, in the order
    /// its parts are declared in (top-level `let`s are used by the parts after them); each part
    /// lives in the file of its concept.
    static let script = scriptSetup + accessScript + calibrationScript + clickScript + plotScript + statusScript + controlsScript + hookScript

    /// Shared state, the point markers and the text of one sample's numbers.
    static let scriptSetup = #"""
    "use strict";
    const $ = (id) => document.getElementById(id);
    const palette = ["#e6194b", "#2f9e44", "#1c7ed6", "#f08c00", "#9c36b5", "#0c8599", "#d6336c", "#5c940d"];
    const pointColor = (i) => palette[i % palette.length];
    const plotSeconds = 60;
    const picture = $("picture"), stage = $("stage");
    let points = [];               // the --at points, [x, y] each, from the status
    const series = [];             // per point: [{t, mean: [r, g, b], sd: [r, g, b] or null}], the last minute
    const latest = [];             // per point: the newest sample
    let plotDirty = true;

    // --- markers ---------------------------------------------------------------------------------

    function marker(x, y, className, label, color) {
      const element = document.createElement("div");
      element.className = "marker " + className;
      element.style.left = (x * 100) + "%";
      element.style.top = (y * 100) + "%";
      if (color) element.style.setProperty("--c", color);
      if (label) {
        const tag = document.createElement("span");
        tag.textContent = label;
        element.append(tag);
      }
      stage.append(element);
      return element;
    }

    function showPoints() {
      stage.querySelectorAll(".marker.point").forEach((element) => element.remove());
      points.forEach(([x, y], i) => marker(x, y, "point", String(i + 1), pointColor(i)).dataset.point = i);
      const list = $("points");
      list.replaceChildren();
      const legend = $("legend");
      legend.replaceChildren();
      points.forEach(([x, y], i) => {
        const row = document.createElement("div");
        row.className = "reading";
        row.id = "point-" + i;
        row.innerHTML = `<div class="swatch small"></div><div class="numbers"><div class="head"></div>` +
          `<div class="stats quiet"></div><div class="clipped quiet"></div></div>`;
        row.querySelector(".head").innerHTML = `<span class="tag" style="background:${pointColor(i)}">${i + 1}</span>` +
          `${x}, ${y} <span class="hex"></span>`;
        list.append(row);
        const key = document.createElement("span");
        key.innerHTML = `<i style="background:${pointColor(i)}"></i>${i + 1}: ${x}, ${y}`;
        legend.append(key);
      });
    }

    // --- one sample's numbers ----------------------------------------------------------------------

    const fixed = (values) => values.map((value) => Number(value).toFixed(2)).join(" ");

    /// "mean R G B ± sd R G B", or "" from a server without per-sample statistics.
    function statsText(sample) {
      return Array.isArray(sample.mean) && Array.isArray(sample.sd) ? `mean ${fixed(sample.mean)} ± sd ${fixed(sample.sd)}` : "";
    }

    function clippedText(sample) {
      if (sample.clipped === undefined) return "";
      return `clipped ${sample.clipped}` + (sample.n === undefined ? "" : ` · n ${sample.n}`);
    }


    """#

    /// Click to sample: the point under the pointer through the sample endpoint.
    static let clickScript = #"""
    // --- click to sample -------------------------------------------------------------------------

    let clickMarker = null, clicks = 0;
    picture.addEventListener("click", async (event) => {
      const click = ++clicks;  // answers to quick clicks may come back out of order
      const box = picture.getBoundingClientRect();
      const x = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
      const y = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));
      if (clickMarker) clickMarker.remove();
      clickMarker = marker(x, y, "click", "", "");
      const message = $("message");
      try {
        const response = await api(`/api/v1/sample?at=${x.toFixed(4)},${y.toFixed(4)}`);
        const body = await response.json();
        if (!response.ok) throw new Error(body.error);
        const sample = body.samples[0];
        if (click === clicks) showClicked(sample, body.frame);
        message.textContent = "";
        const item = document.createElement("li");
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.style.background = sample.hex;
        item.append(chip, `${sample.hex} at ${sample.x}, ${sample.y}`);
        const history = $("history");
        history.prepend(item);
        while (history.children.length > 10) history.lastChild.remove();
      } catch (error) {
        message.className = "error";
        message.textContent = String(error.message || error);
      }
    });

    // The last click's sample beside the picture.
    function showClicked(sample, frame) {
      $("swatch").style.background = sample.hex;
      $("hex").textContent = sample.hex;
      $("rgb").textContent = `${sample.r}, ${sample.g}, ${sample.b}`;
      $("stats").textContent = statsText(sample);
      $("clipped").textContent = clippedText(sample);
      $("coords").textContent = `${sample.x}, ${sample.y} (frame ${frame})`;
      showCalibrated($("clicked"), sample);
    }


    """#

    /// The status line, the points and the profile and target from `/api/v1/status`.
    static let statusScript = #"""
    // --- status --------------------------------------------------------------------------------

    async function loadStatus() {
      try {
        const response = await api("/api/v1/status");
        if (response.status === 401) return;  // the line at the top says how to open the page
        const status = await response.json();
        if (JSON.stringify(status.points) !== JSON.stringify(points)) {
          points = status.points || [];
          showPoints();
        }
        const parts = [status.source, status.format, `${status.frameRate} fps`, status.state];
        if (status.error) parts.push(status.error);
        $("status").textContent = parts.filter((part) => part).join(" · ");
        $("status").className = status.error ? "error" : "";
        showCalibration(status);
        const warnings = $("warnings");
        warnings.replaceChildren(...(status.controlWarnings || []).map((text) => {
          const item = document.createElement("li");
          item.textContent = text;
          return item;
        }));
      } catch (error) {
        $("status").textContent = `status: ${error.message || error}`;
      }
    }
    loadStatus();
    setInterval(loadStatus, 2000);


    """#

    /// `window.eyedropper`, read by the browser tests.
    static let hookScript = #"""
    window.eyedropper = Object.freeze({
      /// How many samples the plot holds for each point.
      plotPoints: () => points.map((_, i) => (series[i] || []).length),
      /// How many times the controls panel has been (re)built from the listing.
      controlsLoaded: () => controlsLoaded,
    });
    """#
}
