#!/usr/bin/env bash
# Reproduces web/vendor/ from web/package-lock.json: the charting code that
# accel-doctor inlines into its HTML report (CMake embeds web/vendor/ into the
# binary; building and testing accel-doctor never needs node or npm).
#
#   web/update-vendor.sh           reinstall the locked versions and copy them
#   web/update-vendor.sh --check   also fail when the result differs from git
#
# To move to newer versions: `cd web && npm install --save-exact vega@X
# vega-lite@Y vega-embed@Z`, run this script, read the diff, and commit
# package.json, package-lock.json and vendor/ together.
set -euo pipefail
cd "$(dirname "$0")"

# `npm ci` installs exactly what the lock file names and checks each tarball
# against its integrity hash; --ignore-scripts: nothing from the packages runs.
npm ci --no-audit --no-fund --ignore-scripts

copy_min() {  # copy_min SRC DEST: the minified build without its source-map comment
  # The report inlines the code, where a `sourceMappingURL` comment would make
  # an open DevTools window try to fetch a .map file that is not there.
  sed -e '/^\/\/# sourceMappingURL=/d' "$1" > "$2"
}
mkdir -p vendor
copy_min node_modules/vega/build/vega.min.js vendor/vega.min.js
copy_min node_modules/vega-lite/build/vega-lite.min.js vendor/vega-lite.min.js
copy_min node_modules/vega-embed/build/vega-embed.min.js vendor/vega-embed.min.js
cp node_modules/vega/LICENSE vendor/LICENSE.vega
cp node_modules/vega-lite/LICENSE vendor/LICENSE.vega-lite
cp node_modules/vega-embed/LICENSE vendor/LICENSE.vega-embed

# Versions, for the report's footer and for people: name version license.
node -e '
  const lock = require("./package-lock.json");
  const out = [];
  for (const name of ["vega", "vega-lite", "vega-embed"]) {
    const p = lock.packages["node_modules/" + name];
    out.push([name, p.version, p.license || "?"].join(" "));
  }
  process.stdout.write(out.join("\n") + "\n");' > vendor/VERSIONS

# Every package in the lock file with its license: the bundles above are built
# from a subset of these (d3 modules in vega, fast-json-patch and vega-themes
# in vega-embed, ...), so this list covers what the minified files contain.
node -e '
  const lock = require("./package-lock.json");
  const rows = Object.entries(lock.packages).filter(([k]) => k)
    .map(([k, p]) => k.replace(/^.*node_modules\//, "") + " " + p.version + " " + (p.license || "?"));
  process.stdout.write([...new Set(rows)].sort().join("\n") + "\n");' > vendor/THIRD_PARTY

(cd vendor && sha256sum vega.min.js vega-lite.min.js vega-embed.min.js > SHA256SUMS)

if [ "${1:-}" = "--check" ]; then
  git -C .. diff --exit-code -- web/vendor && echo "update-vendor: web/vendor matches the lock file"
fi
