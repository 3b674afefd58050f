extension Page {
    /// The page's script: markers, click sampling, the plot from the event stream, the controls
    /// panel, and with `--profile` the calibrated colour. Written against the per-sample
    /// statistics (`mean`, `sd`, `n`, `clipped`) and tolerating their absence, and against
    /// `calibrated`, `deltaE` and `pass`, showing nothing of them where a sample has none.
    /// `window.eyedropper` is a read-only hook for the browser test.
    static let script = #"""
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

    // --- the calibrated colour (--profile, --target) ----------------------------------------------

    let tolerance = null;          // the target's, from the status

    /// Shows `sample`'s calibrated colour in a block right after `anchor`, made the first time and
    /// removed when a sample has none (so without --profile the page is as it was): the camera's
    /// and the calibrated swatch side by side, the calibrated hex and L*a*b*, and with --target
    /// the ΔE and PASS or FAIL, the word as large as the colour is loud.
    function showCalibrated(anchor, sample) {
      let block = anchor.nextElementSibling;
      if (block && !block.classList.contains("calibrated")) block = null;
      const calibrated = sample.calibrated;
      if (!calibrated) {
        if (block) block.remove();
        return;
      }
      if (!block) {
        block = document.createElement("div");
        block.className = "calibrated";
        block.innerHTML = `<div class="pair"><figure><div class="swatch camera"></div>camera</figure>` +
          `<figure><div class="swatch cal"></div>calibrated</figure>` +
          `<div class="values"><div class="cal-hex"></div><div class="cal-lab"></div><div class="cal-gamut"></div></div></div>` +
          `<div class="verdict" hidden><span class="mark"></span><span class="score"><span class="delta-e"></span><span class="tolerance"></span></span></div>`;
        anchor.after(block);
      }
      block.querySelector(".swatch.camera").style.background = sample.hex;
      block.querySelector(".swatch.cal").style.background = calibrated.hex;
      block.querySelector(".cal-hex").textContent = calibrated.hex;
      block.querySelector(".cal-lab").textContent = Array.isArray(calibrated.lab) ? `L*a*b* ${fixed(calibrated.lab)}` : "";
      block.querySelector(".cal-gamut").textContent = calibrated.inGamut === false ? "outside sRGB: the swatch is clamped" : "";
      const verdict = block.querySelector(".verdict");
      verdict.hidden = typeof sample.pass !== "boolean";
      if (verdict.hidden) return;
      verdict.className = "verdict " + (sample.pass ? "pass" : "fail");
      verdict.querySelector(".mark").textContent = sample.pass ? "PASS" : "FAIL";
      verdict.querySelector(".delta-e").textContent = `ΔE ${Number(sample.deltaE).toFixed(2)}`;
      verdict.querySelector(".tolerance").textContent = tolerance === null ? "" : `passes at ≤ ${tolerance.toFixed(2)}`;
    }

    /// The profile and target from the status above the points; nothing without --profile.
    function showCalibration(status) {
      const panel = $("calibration");
      const profile = status.profile;
      tolerance = status.target ? Number(status.target.tolerance) : null;
      if (!profile) {
        panel.replaceChildren();
        return;
      }
      const line = document.createElement("div");
      line.className = "quiet";
      line.textContent = `profile ${profile.path} · ${profile.model} · made ${profile.created} from ` +
        `${profile.width}x${profile.height} ${profile.matrix} ${profile.range}`;
      const parts = [line];
      if (status.target) {
        const target = document.createElement("div");
        target.className = "target";
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.style.background = status.target.hex;
        const text = document.createElement("span");
        text.textContent = `target L*a*b* ${fixed(status.target.lab)} · passes within ΔE ${tolerance.toFixed(2)}`;
        target.append(chip, text);
        parts.push(target);
      }
      if ((profile.warnings || []).length) {
        const list = document.createElement("ul");
        list.append(...profile.warnings.map((text) => {
          const item = document.createElement("li");
          item.textContent = text;
          return item;
        }));
        parts.push(list);
      }
      panel.replaceChildren(...parts);
    }

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
        const response = await fetch(`/api/v1/sample?at=${x.toFixed(4)},${y.toFixed(4)}`);
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

    // --- the event stream and the plot ---------------------------------------------------------

    const events = new EventSource("/api/v1/samples");
    events.onmessage = (event) => {
      const body = JSON.parse(event.data);
      const t = performance.now() / 1000;
      body.samples.forEach((sample, i) => {
        const mean = Array.isArray(sample.mean) ? sample.mean : [sample.r, sample.g, sample.b];
        (series[i] = series[i] || []).push({ t, mean, sd: Array.isArray(sample.sd) ? sample.sd : null });
        latest[i] = sample;
      });
      plotDirty = true;
    };
    events.onerror = () => {
      if (events.readyState === EventSource.CLOSED) $("legend").append(" · the event stream closed: reload to try again");
    };

    const lumaWeights = [0.2126, 0.7152, 0.0722];
    /// The plotted value and the half-width of its band. Luma's band is the weighted sum of the
    /// channels' sds: a bound (the channels' covariance is not sent), exact when they move together.
    function plotted(entry) {
      const channel = $("channel").value;
      if (channel === "luma") {
        const value = lumaWeights.reduce((sum, w, c) => sum + w * entry.mean[c], 0);
        const band = entry.sd ? lumaWeights.reduce((sum, w, c) => sum + w * entry.sd[c], 0) : 0;
        return [value, band];
      }
      return [entry.mean[channel], entry.sd ? entry.sd[channel] : 0];
    }

    function drawPlot() {
      const canvas = $("plot"), ratio = window.devicePixelRatio || 1;
      const width = canvas.clientWidth, height = canvas.clientHeight;
      if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
        canvas.width = Math.round(width * ratio);
        canvas.height = Math.round(height * ratio);
      }
      const context = canvas.getContext("2d");
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, width, height);
      const now = performance.now() / 1000, start = now - plotSeconds;
      for (const entries of series) {
        let old = 0;
        while (old < entries.length && entries[old].t < start) old++;
        if (old) entries.splice(0, old);
      }
      let low = Infinity, high = -Infinity;
      for (const entries of series) for (const entry of entries || []) {
        const [value, band] = plotted(entry);
        low = Math.min(low, value - band);
        high = Math.max(high, value + band);
      }
      let span = 255;
      if (high >= low) {
        span = Math.max(high - low, 8);  // at least 8 levels tall
        const middle = (high + low) / 2;
        low = middle - span * 0.55;
        high = middle + span * 0.55;
      } else {
        low = 0;
        high = 255;
      }
      const left = 44, right = 8, top = 6, bottom = 20;
      const px = (t) => left + (t - start) / plotSeconds * (width - left - right);
      const py = (v) => top + (high - v) / (high - low) * (height - top - bottom);
      context.font = "11px system-ui, sans-serif";
      context.lineWidth = 1;
      context.strokeStyle = "#e5e5ea";
      context.fillStyle = "#6e6e73";
      context.textAlign = "right";
      context.textBaseline = "middle";
      for (let i = 0; i <= 4; i++) {
        const value = low + (high - low) * i / 4, y = Math.round(py(value)) + 0.5;
        context.beginPath(); context.moveTo(left, y); context.lineTo(width - right, y); context.stroke();
        context.fillText(value.toFixed(span < 20 ? 1 : 0), left - 6, y);
      }
      context.textAlign = "center";
      context.textBaseline = "top";
      for (let seconds = 0; seconds <= plotSeconds; seconds += 10) {
        const x = Math.round(px(now - seconds)) + 0.5;
        context.beginPath(); context.moveTo(x, top); context.lineTo(x, height - bottom); context.stroke();
        context.fillText(seconds ? `-${seconds} s` : "now", Math.min(x, width - right - 12), height - bottom + 4);
      }
      series.forEach((entries, i) => {
        if (!entries || !entries.length) return;
        const color = pointColor(i);
        // Runs without a gap over a second (the stream paused): each drawn on its own.
        const runs = [[]];
        entries.forEach((entry, k) => {
          if (k && entry.t - entries[k - 1].t > 1) runs.push([]);
          runs[runs.length - 1].push([entry.t, ...plotted(entry)]);
        });
        for (const run of runs) {
          context.globalAlpha = 0.2;
          context.fillStyle = color;
          context.beginPath();
          run.forEach(([t, value, band], k) => (k ? context.lineTo : context.moveTo).call(context, px(t), py(value + band)));
          for (let k = run.length - 1; k >= 0; k--) context.lineTo(px(run[k][0]), py(run[k][1] - run[k][2]));
          context.closePath();
          context.fill();
          context.globalAlpha = 1;
          context.strokeStyle = color;
          context.lineWidth = 1.5;
          context.beginPath();
          run.forEach(([t, value], k) => (k ? context.lineTo : context.moveTo).call(context, px(t), py(value)));
          context.stroke();
          context.lineWidth = 1;
        }
      });
    }

    function showLatest() {
      latest.forEach((sample, i) => {
        const row = $("point-" + i);
        if (!row || !sample) return;
        row.querySelector(".swatch").style.background = sample.hex;
        row.querySelector(".hex").textContent = `${sample.hex} · ${sample.r} ${sample.g} ${sample.b}`;
        row.querySelector(".stats").textContent = statsText(sample);
        row.querySelector(".clipped").textContent = clippedText(sample);
        showCalibrated(row, sample);
      });
    }

    $("channel").addEventListener("change", () => { plotDirty = true; });
    setInterval(() => {
      if (!plotDirty) return;
      plotDirty = false;
      drawPlot();
      showLatest();
    }, 250);

    // --- status --------------------------------------------------------------------------------

    async function loadStatus() {
      try {
        const status = await (await fetch("/api/v1/status")).json();
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

    // --- camera controls -----------------------------------------------------------------------

    const rows = new Map();        // control name -> its row
    let controlsLoaded = 0, listingFailed = false, listings = 0;

    /// The input a control gets: sliders for integers, checkboxes for booleans, selects for
    /// menus; nil for the rest (buttons, arrays, strings, 64-bit ranges past 2^53, no value).
    function inputKind(control) {
      if (control.value === undefined || control.flags.includes("has-payload")) return null;
      switch (control.type) {
        case "int": case "int64":
          return Number.isSafeInteger(control.min) && Number.isSafeInteger(control.max) ? "slider" : null;
        case "bool": return "toggle";
        case "menu": case "intmenu": return "select";
        default: return null;
      }
    }

    function makeRow(control) {
      const kind = inputKind(control);
      const element = document.createElement("div");
      element.className = "control";
      element.id = "control-" + control.name;
      const label = document.createElement("label");
      label.textContent = control.name;
      let input;
      if (kind === "slider") {
        input = document.createElement("input");
        input.type = "range";
        input.min = control.min;
        input.max = control.max;
        input.step = control.step || 1;
      } else if (kind === "toggle") {
        input = document.createElement("input");
        input.type = "checkbox";
      } else {
        input = document.createElement("select");
        for (const [index, entry] of Object.entries(control.menu)) input.add(new Option(String(entry), index));
      }
      input.name = control.name;
      input.id = "input-" + control.name;
      label.htmlFor = input.id;
      const output = document.createElement("output");
      const note = document.createElement("div");
      note.className = "note";
      element.append(label, input, output, note);
      const read = () => kind === "toggle" ? (input.checked ? 1 : 0) : Number(input.value);
      input.addEventListener("input", () => {
        row.busy = true;  // until the change is sent and read back: no refresh moves it meanwhile
        if (kind === "slider") output.textContent = input.value;
      });
      input.addEventListener("change", () => setControl(control.name, read(), row));
      // Moved and put back without a change: refreshes may move it again.
      input.addEventListener("blur", () => { row.busy = row.sending; });
      const row = {
        element, input, note,
        update(control) {
          const locked = control.flags.includes("inactive") || control.flags.includes("read-only");
          element.classList.toggle("inactive", locked);
          input.disabled = locked;
          element.title = [control.type, ...control.flags].join(", ");
          if (row.busy) return;
          if (kind === "toggle") input.checked = control.value !== 0;
          else input.value = String(control.value);
          output.textContent = kind === "slider" ? String(control.value) : "";
        },
        say(text, isError) {
          note.textContent = text;
          note.className = "note" + (isError ? " error" : "");
        },
        busy: false,
        sending: false,
      };
      return row;
    }

    async function setControl(name, value, row) {
      row.say("setting…", false);
      row.busy = row.sending = true;
      try {
        const response = await fetch("/api/v1/controls", {
          method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ [name]: value }) });
        const body = await response.json();
        if (!response.ok) throw new Error(body.error);
        const kept = body[name];
        row.say(kept === value ? `read back ${kept}` : `asked ${value}, the camera kept ${kept}`, kept !== value);
      } catch (error) {
        row.say(String(error.message || error), true);
      }
      row.busy = row.sending = false;
      await loadControls();
    }

    async function loadControls() {
      const note = $("controls-note"), panel = $("controls"), lock = $("lock");
      const request = ++listings;
      let listing;
      try {
        const response = await fetch("/api/v1/controls");
        listing = await response.json();
        // A newer listing was asked for meanwhile (after a change was set): this one is stale.
        if (request !== listings) return;
        if (!response.ok) throw new Error(listing.error);
      } catch (error) {
        note.textContent = `controls: ${error.message || error}`;
        note.className = "error";
        listingFailed = true;
        controlsLoaded++;
        return;
      }
      if (listing.length === 0) {
        note.textContent = "This source has no camera controls.";
        note.className = "quiet";
        lock.hidden = true;
        panel.replaceChildren();
        rows.clear();
        controlsLoaded++;
        return;
      }
      if (listingFailed) {
        note.textContent = "";
        note.className = "quiet";
        listingFailed = false;
      }
      lock.hidden = false;
      const shown = listing.filter((control) => inputKind(control));
      if (shown.length !== rows.size || !shown.every((control) => rows.has(control.name))) {
        panel.replaceChildren();
        rows.clear();
        for (const control of shown) {
          const row = makeRow(control);
          rows.set(control.name, row);
          panel.append(row.element);
        }
      }
      for (const control of shown) rows.get(control.name).update(control);
      controlsLoaded++;
    }

    $("lock").addEventListener("click", async () => {
      const note = $("controls-note");
      note.textContent = "locking…";
      note.className = "quiet";
      try {
        const response = await fetch("/api/v1/controls/lock", { method: "POST" });
        const body = await response.json();
        if (!response.ok) throw new Error(body.error);
        const made = Object.entries(body).map(([name, value]) => `${name}=${value}`);
        note.textContent = made.length ? `locked: ${made.join(" ")}` : "nothing to lock: no automatic control was on";
      } catch (error) {
        note.textContent = String(error.message || error);
        note.className = "error";
      }
      await loadControls();
    });

    loadControls();
    // Volatile values (gain under automatic gain) move by themselves: read them again now and then.
    // A listing that failed (a camera not yet there) is asked for again too.
    setInterval(() => { if (rows.size || listingFailed) loadControls(); }, 5000);

    window.eyedropper = Object.freeze({
      /// How many samples the plot holds for each point.
      plotPoints: () => points.map((_, i) => (series[i] || []).length),
      /// How many times the controls panel has been (re)built from the listing.
      controlsLoaded: () => controlsLoaded,
    });
    """#
}
