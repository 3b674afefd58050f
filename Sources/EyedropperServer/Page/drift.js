// --- the white reference's drift (--white-reference) ------------------------------------------

const driftSeries = [];        // [{t, deltaE, applied, state}] or {t, gap: true} for a line without a reference, the last minute
let driftReference = null;     // the status's "reference", or null without --white-reference
let driftLatest = null;        // the newest line's "reference"
let driftFrame = null;         // and its frame's number

/// One event's reference (or its absence) into the drift plot's series.
function addDrift(body, t) {
  if (!driftReference && !body.reference) return;
  const reference = body.reference;
  driftSeries.push(reference ? { t, deltaE: reference.deltaE, applied: reference.applied, state: reference.state } : { t, gap: true });
  driftLatest = reference || null;
  driftFrame = body.frame;
}

/// "ΔE 3.41 · ×1.0210 1.0000 0.9730 · ok (bradford)", or what keeps the readings uncorrected.
function driftText(reference) {
  if (!reference) return driftReference && driftReference.why ? driftReference.why : "no reference in the last line";
  const deltaE = reference.deltaE === null ? "ΔE -" : `ΔE ${Number(reference.deltaE).toFixed(2)}`;
  if (!reference.applied) return `${deltaE} · ${reference.state}: readings uncorrected`;
  return `${deltaE} · ×${reference.gains.map((gain) => Number(gain).toFixed(3)).join(" ")} · ${reference.state} (${reference.model})`;
}

/// The card after the plot: hidden without --white-reference; the status gives the limit and why
/// the reference is off when the profile served cannot take it.
function showDrift(status) {
  driftReference = status.reference || null;
  $("drift-card").hidden = !driftReference;
  if (!driftReference) return;
  const parts = [`at ${driftReference.x}, ${driftReference.y}`, driftReference.model];
  if (driftReference.recorded) parts.push(`as recorded in the ${driftReference.recorded === "lab" ? "given L*a*b*" : "profile"}`);
  if (typeof driftReference.maxDrift === "number") parts.push(`max drift ΔE ${driftReference.maxDrift.toFixed(2)}`);
  $("drift-about").textContent = parts.join(" · ");
}

function drawDrift() {
  if ($("drift-card").hidden) return;
  const { context, width, height } = freshCanvas($("drift"));
  const now = performance.now() / 1000, start = now - plotSeconds;
  let old = 0;
  while (old < driftSeries.length && driftSeries[old].t < start) old++;
  if (old) driftSeries.splice(0, old);
  const limit = driftReference && typeof driftReference.maxDrift === "number" ? driftReference.maxDrift : null;
  let high = Math.max(1, limit === null ? 0 : limit * 1.2);
  for (const entry of driftSeries) if (!entry.gap && entry.deltaE !== null) high = Math.max(high, entry.deltaE * 1.1);
  const { px, py, left, right } = drawAxes(context, width, height, now, 0, high, high < 4 ? 1 : 0);
  if (limit !== null) {
    const y = Math.round(py(limit)) + 0.5;
    context.strokeStyle = "#c21f1f";
    context.setLineDash([5, 4]);
    context.beginPath(); context.moveTo(left, y); context.lineTo(width - right, y); context.stroke();
    context.setLineDash([]);
  }
  // Applied frames joined while they follow each other within a second; a line without a
  // reference leaves a gap, and a frame not applied is a red dot of its own.
  const runs = [[]];
  driftSeries.forEach((entry, k) => {
    const joined = !entry.gap && entry.applied && entry.deltaE !== null;
    if (!joined || (k && entry.t - driftSeries[k - 1].t > 1)) { if (runs[runs.length - 1].length) runs.push([]); }
    if (joined) runs[runs.length - 1].push(entry);
  });
  context.strokeStyle = "#1c7ed6";
  context.lineWidth = 1.5;
  for (const run of runs) {
    if (!run.length) continue;
    context.beginPath();
    run.forEach((entry, k) => (k ? context.lineTo : context.moveTo).call(context, px(entry.t), py(entry.deltaE)));
    if (run.length === 1) context.lineTo(px(run[0].t) + 1, py(run[0].deltaE));
    context.stroke();
  }
  context.fillStyle = "#c21f1f";
  for (const entry of driftSeries) {
    if (entry.gap || entry.applied || entry.deltaE === null) continue;
    context.beginPath(); context.arc(px(entry.t), py(entry.deltaE), 2.5, 0, 2 * Math.PI); context.fill();
  }
  context.lineWidth = 1;
  const line = $("drift-now");
  line.textContent = driftText(driftLatest);
  if (driftFrame !== null) line.dataset.frame = driftFrame;
  line.className = driftLatest && driftLatest.applied && driftLatest.state === "ok" ? "" : "warn";
}
