import Hummingbird

/// `GET /`: one self-contained page (no external assets): the live picture with a marker at each
/// `--at` point and at the last click; a click samples the point under the pointer through the
/// sample endpoint and shows its colour, mean +- sd and clipped channels beside the picture; a plot
/// of each point's mean over the last minute from the event stream, its sd as a band; the camera's
/// controls, built from the listing, with a Lock button. With `--profile`, each sample's
/// calibrated colour beside the camera's, and with `--target` its ΔE and a PASS or FAIL mark big
/// enough to read across a bench. Open to anyone, with or without a token: the same static text
/// for everyone; the script takes the token from `#token=`.
///
/// The page is written as files in Sources/EyedropperServer/Page, embedded at build: page.html
/// with page.css in place of `{{page.css}}` and the script in place of `{{page.js}}`. The script
/// is one, in the order of its parts (top-level `let`s are used by the parts after them), each in
/// the file of its concept:
/// - setup.js: shared state, the point markers and the text of one sample's numbers (and its
///   nearest named colour);
/// - access.js: the token from `#token=`, and `api` and `eventStream`, through which every request
///   goes with the token when the page has one;
/// - calibration.js: with `--profile` and `--target`, the calibrated colour, ΔE and PASS or FAIL;
/// - click.js: click to sample, through the sample endpoint;
/// - plot.js: the event stream and the plot of each point's mean ± sd over the last minute;
/// - drift.js: with `--white-reference`, the plot of the reference's ΔE over the last minute and
///   the newest reading's correction;
/// - status.js: the status line, the points, the profile and target;
/// - controls.js: the camera controls panel, built from the listing, set with PUT, Lock;
/// - chart.js: "Find the chart": the ColorChecker outlined over the picture, from the chart endpoint;
/// - record.js: Record, held: the camera's frames from the recording endpoint, saved as a .y4m;
/// - hook.js: `window.eyedropper`, read-only, for the browser tests.
/// Written against the per-sample statistics (`mean`, `sd`, `n`, `clipped`) and `calibrated`,
/// `deltaE` and `pass`, tolerating their absence.
enum Page {
    static let scriptParts: [[UInt8]] = [
        PackageResources.setup_js, PackageResources.access_js, PackageResources.calibration_js, PackageResources.click_js,
        PackageResources.plot_js, PackageResources.drift_js, PackageResources.status_js, PackageResources.controls_js,
        PackageResources.chart_js, PackageResources.record_js, PackageResources.hook_js,
    ]

    /// The page as served.
    static let html: String = String(decoding: PackageResources.page_html, as: UTF8.self)
        .replacingOccurrences(of: "{{page.css}}", with: String(decoding: PackageResources.page_css, as: UTF8.self))
        .replacingOccurrences(of: "{{page.js}}", with: String(decoding: scriptParts.joined(), as: UTF8.self))
}

/// `GET /`: the page.
struct PageController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: Page.html)))
        }
    }
}
