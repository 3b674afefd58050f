// --- the ColorChecker, found live (GET /api/v1/chart) --------------------------------------------

let chartShown = null;         // the newest answer while "Find the chart" is on, else null
let chartTimer = null;

const svgNamespace = "http://www.w3.org/2000/svg";
/// An outline over the picture, in the picture's own 0...1 coordinates, as the API gives them.
const chartOverlay = document.createElementNS(svgNamespace, "svg");
chartOverlay.id = "chart-overlay";
chartOverlay.setAttribute("viewBox", "0 0 1 1");
chartOverlay.setAttribute("preserveAspectRatio", "none");
chartOverlay.style.display = "none";
stage.append(chartOverlay);

/// Each patch outlined and numbered where the chart was found; a line saying how sure, or why not.
function showChart(chart) {
  chartShown = chart;
  const note = $("chart-note");
  chartOverlay.replaceChildren();
  if (!chart.found) {
    note.textContent = `not found (${chart.reason}): ${chart.detail}`;
    return;
  }
  const visible = new Set(chart.visible || chart.patches.map((patch) => patch.number));
  note.textContent = `found, confidence ${Number(chart.confidence).toFixed(2)}` + (chart.mirrored ? ", seen in a mirror" : "") +
    (visible.size < 24 ? `, ${visible.size} of 24 patches seen` : "") +
    `: patch 1 (dark skin) at ${chart.patches[0].center.map((v) => v.toFixed(3)).join(", ")}` +
    (chart.warnings || []).map((warning) => ` · ${warning}`).join("");
  for (const patch of chart.patches) {
    const outline = document.createElementNS(svgNamespace, "polygon");
    outline.setAttribute("points", patch.corners.map(([x, y]) => `${x},${y}`).join(" "));
    outline.dataset.patch = patch.number;
    // A hidden patch (covered, beyond the edge) dashed: where the grid puts it, not read.
    if (!visible.has(patch.number)) outline.setAttribute("class", "hidden");
    chartOverlay.append(outline);
  }
}

async function findChart() {
  try {
    const response = await api("/api/v1/chart");
    if (response.ok && chartTimer !== null) showChart(await response.json());
  } catch (error) {
    $("chart-note").textContent = "the server did not answer";
  }
  if (chartTimer !== null) chartTimer = setTimeout(findChart, 500);
}

/// "Find the chart" on and off: while on, the outline follows the chart twice a second.
$("find-chart").addEventListener("click", () => {
  const on = chartTimer === null;
  $("find-chart").textContent = on ? "Stop" : "Find the chart";
  $("find-chart").setAttribute("aria-pressed", String(on));
  chartOverlay.style.display = on ? "" : "none";
  if (on) {
    chartTimer = 0;
    findChart();
  } else {
    stopFinding();
    chartOverlay.replaceChildren();
    $("chart-note").textContent = "";
  }
});

// --- calibrate mode (POST /api/v1/calibration, PUT /api/v1/profile) ---------------------------

let fitShown = null;           // the newest fit's answer ({name, path, report}), else null

/// L*a*b* (D50) as sRGB hex, for the swatches: Bradford to D65, then sRGB's matrix and curve,
/// clamped.
function labHex([l, a, b]) {
  const fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200;
  const inverse = (f) => (f > 6 / 29 ? f ** 3 : 3 * (6 / 29) ** 2 * (f - 4 / 29));
  const [x, y, z] = [0.9642 * inverse(fx), inverse(fy), 0.8249 * inverse(fz)];
  const [x6, y6, z6] = [
    0.9555766 * x - 0.0230393 * y + 0.0631636 * z,
    -0.0282895 * x + 1.0099416 * y + 0.0210077 * z,
    0.0122982 * x - 0.0204830 * y + 1.3299098 * z,
  ];
  const linear = [
    3.2404542 * x6 - 1.5371385 * y6 - 0.4985314 * z6,
    -0.9692660 * x6 + 1.8760108 * y6 + 0.0415560 * z6,
    0.0556434 * x6 - 0.2040259 * y6 + 1.0572252 * z6,
  ];
  const encode = (v) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
  return "#" + linear.map((v) => Math.round(255 * Math.min(1, Math.max(0, encode(v)))).toString(16).padStart(2, "0")).join("");
}

/// good up to ΔE 2 (hard to see side by side), fair up to 4, poor beyond.
const fitClass = (deltaE) => (deltaE <= 2 ? "good" : deltaE <= 4 ? "fair" : "poor");

/// The fit over the picture (each patch read, shaded by its ΔE) and as a table beside it.
function showFit(fit) {
  fitShown = fit;
  const report = fit.report;
  const summary = (s) => `mean ${s.mean.toFixed(2)}, max ${s.max.toFixed(2)}`;
  const used = report.patches.filter((patch) => patch.used).length;
  const percent = (v) => `${(100 * v).toFixed(1)}%`;
  const light = report.light ? ` · light ${percent(report.light.perColumn)} a column to the right, ${percent(report.light.perRow)} a row down` : "";
  const hidden = report.patches.filter((patch) => !patch.used && (patch.excluded || "").startsWith("hidden"));
  const hiddenNote = hidden.length ? ` · not seen: ${hidden.map((patch) => patch.number).join(", ")} (${hidden[0].excluded.replace(/^hidden: /, "")})` : "";
  $("calibrate-summary").textContent = `${report.model} (${report.chosenBy === "asked" ? "as asked" : "least leave-one-out error"}), ` +
    `${used} of 24 patches over ${report.frames} frames · ΔE00 fitted ${summary(report.fitted)} · left out ${summary(report.leaveOneOut)}${light}` +
    `${hiddenNote} · kept as ${fit.name}`;
  const rows = report.patches.map((patch) => {
    const row = document.createElement("tr");
    row.dataset.patch = patch.number;
    row.className = patch.used ? fitClass(patch.deltaE) : "unused";
    const cell = (text, className) => {
      const td = document.createElement("td");
      if (className) td.className = className;
      td.textContent = text;
      return td;
    };
    const swatch = (colour, title) => {
      const span = document.createElement("span");
      span.className = "chip";
      span.style.background = colour;
      span.title = title;
      return span;
    };
    const camera = cell("");
    camera.append(swatch(`rgb(${patch.mean.map((v) => Math.round(v)).join(", ")})`, `camera RGB ${fixed(patch.mean)}`));
    const pair = cell("");
    pair.append(swatch(labHex(patch.reference), `reference L*a*b* ${fixed(patch.reference)}`),
      swatch(labHex(patch.corrected), `corrected L*a*b* ${fixed(patch.corrected)}`));
    row.append(cell(`${patch.number} ${patch.name}`), camera, pair,
      cell(patch.used ? patch.deltaE.toFixed(2) : patch.excluded, "delta-e"),
      cell(patch.deltaELeaveOneOut == null ? "" : patch.deltaELeaveOneOut.toFixed(2), "delta-e"));
    return row;
  });
  $("calibrate-patches").tBodies[0].replaceChildren(...rows);
  $("calibrate-report").hidden = false;
  $("apply-profile").disabled = false;
  $("apply-profile").textContent = "Use this profile";
  chartOverlay.replaceChildren(...report.patches.map((patch) => {
    const outline = document.createElementNS(svgNamespace, "polygon");
    outline.setAttribute("points", patch.corners.map(([x, y]) => `${x},${y}`).join(" "));
    outline.dataset.patch = patch.number;
    outline.setAttribute("class", patch.used ? fitClass(patch.deltaE) : "unused");
    return outline;
  }));
  chartOverlay.style.display = "";
}

/// Stops "Find the chart" and its timer (its outline would replace the fit's); what it drew stays.
function stopFinding() {
  if (chartTimer === null) return;
  clearTimeout(chartTimer);
  chartTimer = null;
  chartShown = null;
  $("find-chart").textContent = "Find the chart";
  $("find-chart").setAttribute("aria-pressed", "false");
}

$("calibrate").addEventListener("click", async () => {
  const frames = Math.round(Number($("calibrate-frames").value));
  const note = $("calibrate-note");
  if (!(frames >= 1 && frames <= 60)) {
    note.textContent = "give 1 to 60 frames";
    return;
  }
  stopFinding();
  $("calibrate").disabled = true;
  note.textContent = `reading the chart in ${frames} frames, then fitting (a second or two)…`;
  try {
    const response = await api(`/api/v1/calibration?frames=${frames}`, { method: "POST" });
    const body = await response.json();
    if (!response.ok) {
      note.textContent = body.error;
      return;
    }
    note.textContent = "";
    showFit(body);
  } catch (error) {
    note.textContent = "the server did not answer";
  } finally {
    $("calibrate").disabled = false;
  }
});

$("apply-profile").addEventListener("click", async () => {
  if (!fitShown) return;
  const note = $("calibrate-note");
  try {
    const response = await api("/api/v1/profile", {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name: fitShown.name }),
    });
    const body = await response.json();
    if (!response.ok) {
      note.textContent = body.error;
      return;
    }
    $("apply-profile").disabled = true;
    $("apply-profile").textContent = "In use";
    // Answered once a frame was read with it (or, with no frame within 5 s, 202 and no frame).
    note.textContent = body.frame === null
      ? `${body.profile.path} is applied, but no frame has come since: readings made with it will say generation ${body.generation}`
      : `every reading is calibrated with ${body.profile.path} from frame ${body.frame} on`;
    loadStatus();
  } catch (error) {
    note.textContent = "the server did not answer";
  }
});
