window.eyedropper = Object.freeze({
  /// How many samples the plot holds for each point.
  plotPoints: () => points.map((_, i) => (series[i] || []).length),
  /// How many times the controls panel has been (re)built from the listing.
  controlsLoaded: () => controlsLoaded,
  /// The newest chart answer shown while "Find the chart" is on, else null.
  chart: () => chartShown,
  /// The newest fit shown by Calibrate ({name, path, report}), else null.
  fit: () => fitShown,
  /// How many lines the drift plot holds (a line without a reference counts as a gap), and the
  /// newest line's "reference" (null without one).
  driftPoints: () => driftSeries.length,
  drift: () => driftLatest,
  /// How many recordings the Record button has saved.
  recordings: () => recordingsMade,
});