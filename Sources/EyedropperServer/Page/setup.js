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


/// "≈ red · ΔE 1.23 · next crimson +4.10" (--palette): the sample's nearest named colour.
function nearestText(nearest) {
  const parts = [`≈ ${nearest.name}`, `ΔE ${Number(nearest.deltaE).toFixed(2)}`];
  if (nearest.next !== null && nearest.next !== undefined) {
    parts.push(`next ${nearest.next}` + (nearest.margin === null || nearest.margin === undefined ? "" : ` +${Number(nearest.margin).toFixed(2)}`));
  }
  return parts.join(" · ");
}

/// Shows `sample.nearest` as a `.nearest` line at the end of `container` when it was matched by
/// the colour of `of` ("camera": the camera's swatch; "calibrated": the calibrated one), removing
/// it otherwise; "unknown" (beyond --max-delta-e) is styled as such.
function showNearest(container, sample, of) {
  let line = container.querySelector(":scope > .nearest");
  const nearest = sample.nearest;
  if (!nearest || (nearest.of || "camera") !== of) {
    if (line) line.remove();
    return;
  }
  if (!line) {
    line = document.createElement("div");
    line.className = "nearest";
    container.append(line);
  }
  line.textContent = nearestText(nearest);
  line.dataset.name = nearest.name;
  line.classList.toggle("unknown", nearest.name === "unknown");
}
