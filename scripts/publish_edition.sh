#!/usr/bin/env bash
# Publish one edition of the book to the gh-pages branch with mike, from a workflow.
#
#   scripts/publish_edition.sh EDITION [REFRESHED]
#
# EDITION    latest (from main), or YYYY.MM (the tag edition-YYYY.MM; published once, never rebuilt)
# REFRESHED  optional: a folder holding the GPU refresh's captures and notebooks (the publish
#            job's refreshed-captures artifact), put into the tree first so that latest shows them
#
# Needs a checkout with its history and tags (the "what changed" page reads the previous
# edition from git) and, to push, GH_TOKEN with contents: write. The token reaches git as an
# HTTP header in the environment, never in .git/config. Makes .venv if there is none.
set -euo pipefail

edition="${1:?usage: scripts/publish_edition.sh EDITION [REFRESHED]}"
refreshed="${2:-}"

if [ ! -x .venv/bin/kernelbook ]; then
  # The build executes nothing: the CPU build of the pinned torch release will do.
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  spec="${TORCH_SPEC:-torch==2.13.0}"
  .venv/bin/python -m pip install -q "${spec%%+*}" --index-url https://download.pytorch.org/whl/cpu
fi
# Each edition serves its own PDFs, printed by the edition's build (KERNELBOOK_PDF, which
# `kernelbook edition publish` sets): Chromium, the Japanese font the PDFs embed, the `pdf` extra.
packages=()
command -v chromium >/dev/null || packages+=(chromium)
dpkg-query -W -f='${Status}' fonts-ipaexfont-gothic 2>/dev/null | grep -q "ok installed" || packages+=(fonts-ipaexfont-gothic)
if [ "${#packages[@]}" -gt 0 ]; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
.venv/bin/python -m pip install -q -e '.[publish,pdf]'

if [ -n "$refreshed" ] && [ -d "$refreshed/snippets" ]; then
  .venv/bin/kernelbook merge "$refreshed"
fi
if [ -n "$refreshed" ] && [ -d "$refreshed/docs" ]; then
  (cd "$refreshed" && find docs -mindepth 3 -maxdepth 3 -type f -name notebook.ipynb -print0) |
    while IFS= read -r -d '' file; do
      mkdir -p -- "$(dirname -- "$file")"
      cp -- "$refreshed/$file" "$file"
    done
fi

git config user.name "github-actions[bot]"
git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
if [ -n "${GH_TOKEN:-}" ]; then
  auth="$(printf 'x-access-token:%s' "$GH_TOKEN" | base64 -w0)"
  export GIT_CONFIG_COUNT=1
  export GIT_CONFIG_KEY_0="http.${GITHUB_SERVER_URL:-https://github.com}/.extraheader"
  export GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $auth"
fi
# mike commits on the local gh-pages branch: start from the published one, if there is one yet.
if git ls-remote --exit-code --heads origin gh-pages >/dev/null; then
  git fetch --no-tags origin +gh-pages:gh-pages
else
  echo "no gh-pages branch yet: this is the first edition published"
fi
push=()
if [ -n "${GH_TOKEN:-}" ]; then push=(--push); fi
.venv/bin/kernelbook edition publish "$edition" "${push[@]}"
