#!/bin/sh
# Refreshes the Redoc bundle embedded in assets/ from npm. Run at development
# time only (the binary and its tests never fetch anything), then commit the
# new files and set redocJS in reference.go to the new name.
#
#   rest/reference/refresh-redoc.sh [version]    # default: the pinned one
set -eu
version=${1:-2.5.4}
assets=$(cd "$(dirname "$0")" && pwd)/assets
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "redoc@$version" >/dev/null && tar xzf "redoc-$version.tgz")
bundle=$tmp/package/bundles/redoc.standalone.js
rm -f "$assets"/redoc-*.standalone.js
cp "$bundle" "$assets/redoc-$version.standalone.js"
{
	echo "Third-party software embedded in rest/reference/assets"
	echo "======================================================"
	echo
	echo "redoc-$version.standalone.js is the unmodified standalone bundle of the npm"
	echo "package redoc@$version (bundles/redoc.standalone.js), fetched by"
	echo "refresh-redoc.sh. Its license, then the notices of the packages the bundle"
	echo "contains (the bundle's redoc.standalone.js.LICENSE.txt):"
	echo
	echo "------------------------------------------------------------------------------"
	echo "redoc@$version (MIT)"
	echo "------------------------------------------------------------------------------"
	echo
	cat "$tmp/package/LICENSE"
	echo
	echo "------------------------------------------------------------------------------"
	echo "Notices in the bundle"
	echo "------------------------------------------------------------------------------"
	echo
	cat "$bundle.LICENSE.txt"
} >"$assets/THIRD_PARTY_LICENSES.txt"
echo "assets/redoc-$version.standalone.js: set redocJS in rest/reference/reference.go to it"
