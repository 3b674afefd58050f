// --- the event stream and the plot ---------------------------------------------------------

eventStream("/api/v1/samples", (data) => {
  const body = JSON.parse(data);
  const t = performance.now() / 1000;
  body.samples.forEach((sample, i) => {
    const mean = Array.isArray(sample.mean) ? sample.mean : [sample.r, sample.g, sample.b];
    (series[i] = series[i] || []).push({ t, mean, sd: Array.isArray(sample.sd) ? sample.sd : null });
    latest[i] = sample;
  });
  addDrift(body, t);
  plotDirty = true;
}, () => $("legend").append(" · the event stream closed: reload to try again"));

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

/// `canvas` sized to its box at the screen's pixel ratio and cleared: its context, drawing in
/// CSS pixels, and its width and height.
function freshCanvas(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const context = canvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, width, height);
  return { context, width, height };
}

/// The frame of a plot over the last `plotSeconds` to `now`: `low`...`high` up the side in five
/// labelled grid lines (`digits` decimals), the seconds along the bottom. Returns where a time
/// (`px`) and a value (`py`) are drawn, and the plotting area's left and right edges.
function drawAxes(context, width, height, now, low, high, digits) {
  const left = 44, right = 8, top = 6, bottom = 20, start = now - plotSeconds;
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
    context.fillText(value.toFixed(digits), left - 6, y);
  }
  context.textAlign = "center";
  context.textBaseline = "top";
  for (let seconds = 0; seconds <= plotSeconds; seconds += 10) {
    const x = Math.round(px(now - seconds)) + 0.5;
    context.beginPath(); context.moveTo(x, top); context.lineTo(x, height - bottom); context.stroke();
    context.fillText(seconds ? `-${seconds} s` : "now", Math.min(x, width - right - 12), height - bottom + 4);
  }
  return { px, py, left, right };
}

function drawPlot() {
  const { context, width, height } = freshCanvas($("plot"));
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
  const { px, py } = drawAxes(context, width, height, now, low, high, span < 20 ? 1 : 0);
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
    showNearest(row.querySelector(".numbers"), sample, "camera");
    showCalibrated(row, sample);
  });
}

$("channel").addEventListener("change", () => { plotDirty = true; });
setInterval(() => {
  if (!plotDirty) return;
  plotDirty = false;
  drawPlot();
  drawDrift();
  showLatest();
}, 250);

