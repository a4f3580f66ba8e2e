// The charting code the HTML report inlines: web/vendor/ embedded as bytes at
// build time (CMakeLists.txt, cmake/EmbedFiles.cmake). Versions are pinned by
// web/package-lock.json; web/update-vendor.sh reproduces the files.
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

}  // namespace accel::web_assets
