// The HTML report: one self-contained file that opens offline in any browser.
// Verdict and findings first, then the operator matrix, the roofline, the
// speed-ups vs CPU, benchmarks against their ceilings, the LLM prefill and
// decode curves, and the environment; the numbers behind each chart sit under
// it. Charts are Vega-Lite specs drawn by Vega, Vega-Lite and vega-embed,
// whose minified code is inlined (core/report/web_assets.hpp): nothing is
// fetched when the page opens.
//
// The page says whether it rendered: <pre id="render-status"> holds
// {"charts": N, "drawn": N, "errors": [...], "done": true} once every chart
// has been embedded, with any script error or rejected promise in "errors"
// (tests/e2e/html_report.sh reads it from headless Chromium).
#pragma once

#include <string>

#include "core/evidence.hpp"

namespace accel {

struct HtmlOptions {
  /// Embed the whole report as JSON (<script type="application/json"
  /// id="accel-report">), so the page carries every number it was made from.
  bool embed_report = true;
};

std::string render_html(const Report& report, const HtmlOptions& options = {});

/// Escapes text for HTML element content and attribute values.
std::string html_escape(const std::string& text);

/// JSON for a <script type="application/json"> island: '<', '>' and '&' are
/// written as \u escapes, so no text in the data can close the element.
std::string json_for_script(const json& value);

}  // namespace accel
