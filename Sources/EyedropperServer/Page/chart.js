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
  note.textContent = `found, confidence ${Number(chart.confidence).toFixed(2)}` + (chart.mirrored ? ", seen in a mirror" : "") +
    `: patch 1 (dark skin) at ${chart.patches[0].center.map((v) => v.toFixed(3)).join(", ")}`;
  for (const patch of chart.patches) {
    const outline = document.createElementNS(svgNamespace, "polygon");
    outline.setAttribute("points", patch.corners.map(([x, y]) => `${x},${y}`).join(" "));
    outline.dataset.patch = patch.number;
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
    clearTimeout(chartTimer);
    chartTimer = null;
    chartShown = null;
    chartOverlay.replaceChildren();
    $("chart-note").textContent = "";
  }
});
