#!/usr/bin/env bash
# Installs everything `make test` and `make demo` need, idempotently:
# Debian packages (when root with apt), a virtual environment in .venv, and
# every local package editable with its test extras, pinned by
# tools/constraints.txt. A second run with nothing changed does no work.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${RVAULT_VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
APT_PACKAGES=(tesseract-ocr tesseract-ocr-eng espeak-ng ffmpeg strace chromium fonts-dejavu-core)
# npm installs axe-core for the site's accessibility test (a Node.js from elsewhere has its own)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

log() { printf 'bootstrap: %s\n' "$*" >&2; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  # Debian's own python3 ships venv/ensurepip separately.
  if ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
    APT_PACKAGES+=(python3-venv)
  fi
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  for tool in tesseract espeak-ng ffmpeg; do
    command -v "$tool" >/dev/null 2>&1 || log "warning: $tool not found (not root, cannot apt-get install it)"
  done
fi

# axe-core for the vault site's accessibility test, pinned by its package-lock.json.
AXE_DIR=packages/analysis-writer/tests/axe
if command -v npm >/dev/null 2>&1; then
  axe_want=$(sha256sum "$AXE_DIR/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$AXE_DIR/node_modules/.rvault-stamp" 2>/dev/null)" != "$axe_want" ]; then
    log "installing axe-core (npm ci in $AXE_DIR)"
    npm ci --prefix "$AXE_DIR" --no-audit --no-fund --silent
    echo "$axe_want" > "$AXE_DIR/node_modules/.rvault-stamp"
  fi
else
  log "warning: npm not found: the site's accessibility test needs axe-core ($AXE_DIR)"
fi

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  log "error: $PYTHON is $("$PYTHON" --version 2>&1); rhetoric-vault needs Python 3.11 or newer"
  exit 2
fi
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

PACKAGES=(contracts packages/tracking-db packages/transcript packages/pptx-evidence
          packages/video-extraction packages/returns-persistence packages/analysis-writer
          packages/archive-batch testkit)
stamp_input() {
  cat tools/constraints.txt tools/dev-requirements.txt
  for pkg in "${PACKAGES[@]}"; do cat "$pkg/pyproject.toml"; done
}
stamp="$VENV/.rvault-bootstrap-stamp"
want=$(stamp_input | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  log "environment up to date"
  exit 0
fi

args=()
for pkg in "${PACKAGES[@]}"; do
  if [ "$pkg" = testkit ]; then args+=(-e "$pkg[pptx-evidence,video-extraction]"); else args+=(-e "$pkg[test]"); fi
done
log "installing local packages (editable) and pinned dependencies"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
  -c tools/constraints.txt -r tools/dev-requirements.txt "${args[@]}"
echo "$want" > "$stamp"
log "done"
