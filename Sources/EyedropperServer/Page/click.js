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
  showNearest($("clicked").querySelector(".numbers"), sample, "camera");
  showCalibrated($("clicked"), sample);
}

