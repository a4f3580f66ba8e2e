// What the HTML report inlines, embedded as bytes at build time (CMakeLists.txt,
// cmake/EmbedFiles.cmake): the charting code of web/vendor/ (versions pinned by
// web/package-lock.json; web/update-vendor.sh reproduces the files) and the
// page's own style sheet and scripts, web/report*.
#pragma once

#include <string_view>

namespace accel::web_assets {

std::string_view vega_js();        ///< vega.min.js
std::string_view vega_lite_js();   ///< vega-lite.min.js
std::string_view vega_embed_js();  ///< vega-embed.min.js
std::string_view license_vega();
std::string_view license_vega_lite();
std::string_view license_vega_embed();
/// "name version license" per line, for the report's footer.
std::string_view versions();

std::string_view report_css();        ///< web/report.css: the page's style sheet
std::string_view report_status_js();  ///< web/report-status.js: runs first, records script errors
std::string_view report_render_js();  ///< web/report-render.js: runs last, draws the charts

}  // namespace accel::web_assets
