import Hummingbird

/// `GET /`: one self-contained page: the live picture; a click samples the point under the
/// pointer through the sample endpoint and shows its colour beside the picture, newest of the last
/// samples first.
enum Page {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <title>Eyedropper</title>
    <style>
      body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; display: flex; gap: 16px; align-items: flex-start; }
      #picture { max-width: 70vw; cursor: crosshair; display: block; }
      #panel { min-width: 220px; }
      #swatch { width: 96px; height: 96px; border: 1px solid #888; }
      #history { list-style: none; padding: 0; }
      #history li { display: flex; gap: 8px; align-items: center; font-family: monospace; }
      #history span.chip { width: 16px; height: 16px; border: 1px solid #888; display: inline-block; }
      .error { color: #b00; }
    </style>
    </head>
    <body>
    <img id="picture" src="/api/v1/stream.mjpg" alt="live picture: click to sample">
    <div id="panel">
      <div id="swatch"></div>
      <div>hex <span id="hex">-</span></div>
      <div>RGB <span id="rgb">-</span></div>
      <div>at <span id="coords">-</span></div>
      <div id="message"></div>
      <h3>Last samples</h3>
      <ol id="history"></ol>
    </div>
    <script>
    const picture = document.getElementById("picture");
    picture.addEventListener("click", async (event) => {
      const box = picture.getBoundingClientRect();
      const x = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
      const y = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));
      const message = document.getElementById("message");
      try {
        const response = await fetch(`/api/v1/sample?at=${x.toFixed(4)},${y.toFixed(4)}`);
        const body = await response.json();
        if (!response.ok) throw new Error(body.error);
        const sample = body.samples[0];
        document.getElementById("swatch").style.background = sample.hex;
        document.getElementById("hex").textContent = sample.hex;
        document.getElementById("rgb").textContent = `${sample.r}, ${sample.g}, ${sample.b}`;
        document.getElementById("coords").textContent = `${sample.x}, ${sample.y} (frame ${body.frame})`;
        message.textContent = "";
        const item = document.createElement("li");
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.style.background = sample.hex;
        item.append(chip, `${sample.hex} at ${sample.x}, ${sample.y}`);
        const history = document.getElementById("history");
        history.prepend(item);
        while (history.children.length > 10) history.lastChild.remove();
      } catch (error) {
        message.className = "error";
        message.textContent = String(error.message || error);
      }
    });
    </script>
    </body>
    </html>
    """#
}

/// `GET /`: the page.
struct PageController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: Page.html)))
        }
    }
}
