// --- access: the token, from #token=... ------------------------------------------------------

const token = (() => {
  const given = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (given) {
    const value = decodeURIComponent(given[1]);
    if (value) sessionStorage.setItem("eyedropper-token", value); else sessionStorage.removeItem("eyedropper-token");
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("eyedropper-token");
})();

/// One line on the page for a 401: how to open it so that it has the token.
function refused() {
  const line = $("access");
  const here = location.origin + location.pathname;
  line.textContent = (token ? "The token this page was opened with was refused" : "This server needs its token") +
    `: open the page as ${here}#token=TOKEN, with the token of eyedropper serve's --token-file or EYEDROPPER_TOKEN.`;
  line.hidden = false;
}

/// fetch, with the token when the page has one; a 401 shows the line.
async function api(path, options = {}) {
  const headers = new Headers(options.headers || {});
  if (token) headers.set("Authorization", "Bearer " + token);
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) refused();
  return response;
}

/// Calls `onChunk` with each piece of `path`'s endless body; resolves true when the body ends,
/// false when it was refused (a 401 shows its line) or failed.
async function readStream(path, onChunk, headers = {}) {
  try {
    const response = await api(path, { headers });
    if (!response.ok) return false;
    const reader = response.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      onChunk(value);
    }
  } catch (error) {
    return false;
  }
}

const crlf2 = [13, 10, 13, 10];
function indexOf(bytes, pattern, from = 0) {
  outer: for (let i = from; i <= bytes.length - pattern.length; i++) {
    for (let j = 0; j < pattern.length; j++) if (bytes[i + j] !== pattern[j]) continue outer;
    return i;
  }
  return -1;
}

/// The live picture: the `<img>`'s own MJPEG stream, or with a token the stream read through
/// fetch, each part (headers, Content-Length bytes of JPEG) shown as a blob.
async function showPicture() {
  if (!token) { picture.src = "/api/v1/stream.mjpg"; return; }
  let buffer = new Uint8Array(0);
  await readStream("/api/v1/stream.mjpg", (chunk) => {
    const joined = new Uint8Array(buffer.length + chunk.length);
    joined.set(buffer);
    joined.set(chunk, buffer.length);
    buffer = joined;
    for (;;) {
      const headEnd = indexOf(buffer, crlf2);
      if (headEnd < 0) return;
      const head = new TextDecoder().decode(buffer.subarray(0, headEnd));
      const length = Number((/content-length:\s*(\d+)/i.exec(head) || [])[1]);
      const start = headEnd + 4;
      if (!(length > 0) || buffer.length < start + length) return;
      const old = picture.src;
      picture.src = URL.createObjectURL(new Blob([buffer.slice(start, start + length)], { type: "image/jpeg" }));
      if (old.startsWith("blob:")) URL.revokeObjectURL(old);
      buffer = buffer.slice(start + length);
    }
  });
}

/// Server-Sent Events at `path`: `onData(data)` for each event's data. An `EventSource`, or
/// with a token the stream read through fetch and parsed (`id:` and `data:` lines, an empty
/// line ends an event), reconnecting like an EventSource when the body ends. `onClosed` when
/// it is refused or fails for good.
function eventStream(path, onData, onClosed) {
  if (!token) {
    const events = new EventSource(path);
    events.onmessage = (event) => onData(event.data);
    events.onerror = () => { if (events.readyState === EventSource.CLOSED) onClosed(); };
    return;
  }
  const decoder = new TextDecoder();
  let text = "", data = [], lastId = "";
  const onChunk = (chunk) => {
    text += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = text.indexOf("\n")) >= 0) {
      const line = text.slice(0, end).replace(/\r$/, "");
      text = text.slice(end + 1);
      if (line === "") {
        if (data.length) onData(data.join("\n"));
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(5).replace(/^ /, ""));
      } else if (line.startsWith("id:")) {
        lastId = line.slice(3).trim();
      }
    }
  };
  (async () => {
    // The frame number of the last event, sent again on a reconnect as an EventSource does.
    while (await readStream(path, onChunk, lastId ? { "Last-Event-ID": lastId } : {})) {
      text = "";
      data = [];
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    onClosed();
  })();
}

showPicture();

