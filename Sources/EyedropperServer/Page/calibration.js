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
  showNearest(block.querySelector(".values"), sample, "calibrated");
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

