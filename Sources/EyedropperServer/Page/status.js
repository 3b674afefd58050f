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
    showDrift(status);
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

