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
    const response = await api("/api/v1/controls", {
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
    const response = await api("/api/v1/controls");
    if (response.status === 401) {  // the line at the top says how to open the page
      controlsLoaded++;
      return;
    }
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
    const response = await api("/api/v1/controls/lock", { method: "POST" });
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

