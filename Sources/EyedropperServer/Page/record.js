// --- record: while the button is held, the camera's frames as a .y4m download ----------------

/// Whole frames of a YUV4MPEG2 stream cut anywhere: the header, then each FRAME line and its
/// width x height x 1.5 bytes; a frame the release cut short is left out.
function wholeFrames(bytes) {
  const headerEnd = bytes.indexOf(10);
  if (headerEnd < 0) return { bytes: bytes.subarray(0, 0), frames: 0 };
  const header = new TextDecoder().decode(bytes.subarray(0, headerEnd));
  const width = +/ W(\d+)/.exec(header)[1], height = +/ H(\d+)/.exec(header)[1];
  const frameBytes = width * height + 2 * Math.ceil(width / 2) * Math.ceil(height / 2);
  let end = headerEnd + 1, frames = 0;
  for (;;) {
    const lineEnd = bytes.indexOf(10, end);
    if (lineEnd < 0 || lineEnd + 1 + frameBytes > bytes.length) break;
    end = lineEnd + 1 + frameBytes;
    frames += 1;
  }
  return { bytes: bytes.subarray(0, end), frames };
}

const recordButton = $("record"), recordNote = $("record-note");
let recording = null, recordingsMade = 0;

/// Held: read /api/v1/recording.y4m into memory, saying how much; released: stop, and save the
/// whole frames as eyedropper-TIME.y4m (`eyedropper sample --source` reads it back).
async function startRecording() {
  if (recording) return;
  const controller = new AbortController(), chunks = [];
  let received = 0;
  recording = controller;
  recordButton.setAttribute("aria-pressed", "true");
  recordNote.textContent = "recording…";
  try {
    const response = await api("/api/v1/recording.y4m?frames=1800", { signal: controller.signal });
    if (!response.ok) {
      recordNote.textContent = `not recorded: ${(await response.json()).error || response.status}`;
      return;
    }
    const reader = response.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      recordNote.textContent = `recording… ${(received / 1e6).toFixed(0)} MB`;
    }
  } catch (error) {
    if (error.name !== "AbortError") recordNote.textContent = `recording stopped: ${error.message}`;
  } finally {
    finishRecording(chunks, received);
  }
}

function finishRecording(chunks, received) {
  recording = null;
  recordButton.setAttribute("aria-pressed", "false");
  const all = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) { all.set(chunk, at); at += chunk.length; }
  const { bytes, frames } = wholeFrames(all);
  if (frames === 0) { recordNote.textContent = "no frame came while the button was held"; return; }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([bytes], { type: "video/x-yuv4mpeg" }));
  link.download = `eyedropper-${new Date().toISOString().replace(/[:.]/g, "-")}.y4m`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  recordingsMade += 1;
  recordNote.textContent = `saved ${link.download}: ${frames} frames, ${(bytes.length / 1e6).toFixed(1)} MB ` +
    `(eyedropper sample --source ${link.download} reads it back)`;
}

function stopRecording() { if (recording) recording.abort(); }
recordButton.addEventListener("pointerdown", (event) => { event.preventDefault(); startRecording(); });
for (const name of ["pointerup", "pointerleave", "pointercancel"]) recordButton.addEventListener(name, stopRecording);
recordButton.addEventListener("keydown", (event) => { if (event.key === " " || event.key === "Enter") startRecording(); });
recordButton.addEventListener("keyup", (event) => { if (event.key === " " || event.key === "Enter") stopRecording(); });
