#!/usr/bin/env bash
# Debian's chromium and chromium-driver, for the web tests (tests/web/) and the page screenshots:
# the browser comes from Debian's archive, never from a browser download. Idempotent (root).
set -euo pipefail

if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
  echo "browser-up: installing Debian's chromium and chromium-driver" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
fi
/usr/bin/chromium --version >&2
