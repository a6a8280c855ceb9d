/// A command that acts on the current chart found none: no `open` has chosen one since the last
/// `close`, failed `open` or sign-on. The shell never picks another open chart in its place; the
/// user says which one (`open N`, `open MRN`), and `charts` lists those still open.
struct NoCurrentChart: Error, Equatable, Sendable {
    /// How many charts are open (none of them current).
    let openCharts: Int

    var message: String {
        guard openCharts > 0 else {
            return "no chart is current. Open one with 'open MRN' (find the MRN with 'find NAME')."
        }
        let charts = openCharts == 1 ? "1 chart is" : "\(openCharts) charts are"
        return "no chart is current (\(charts) open: 'charts' lists them). "
            + "Say which with 'open MRN'; nothing was done."
    }
}
