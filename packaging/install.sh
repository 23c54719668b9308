#!/bin/sh
# install.sh — installs the hermes-mcp binary for this machine, after checking it against SHA256SUMS.
#
#   sh install.sh                      download the latest release from GitHub into ~/.local/bin
#   sh install.sh --from dist          install from a local folder holding the binaries and SHA256SUMS (offline)
#   sh install.sh --prefix /opt/hm     install into /opt/hm/bin instead of ~/.local/bin
#   sh install.sh --print-target       only say which file this machine needs
#
# Environment: HERMES_MCP_RELEASE_URL (where to download from), HERMES_MCP_INSTALL_LIBC=glibc|musl (skip the musl
# check), HERMES_MCP_INSTALL_SYSROOT (tests only: the folder the musl check looks in instead of /).
set -eu

RELEASE_URL=${HERMES_MCP_RELEASE_URL:-https://github.com/mlennie/hermes-mcp/releases/latest/download}
from=""
prefix="${HOME:?HOME is not set}/.local"
print_target=0

say() { printf '%s\n' "$*"; }
die() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a folder"; from=$2; shift 2 ;;
    --from=*) from=${1#--from=}; shift ;;
    --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --print-target) print_target=1; shift ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

# musl (Alpine, Void musl, …) needs the -musl build: its loader is /lib/ld-musl-<arch>.so.1.
libc() {
  case "${HERMES_MCP_INSTALL_LIBC:-}" in
    glibc | musl) say "$HERMES_MCP_INSTALL_LIBC"; return ;;
    "") ;;
    *) die "HERMES_MCP_INSTALL_LIBC must be glibc or musl" ;;
  esac
  for loader in "${HERMES_MCP_INSTALL_SYSROOT:-}"/lib/ld-musl-*.so.1; do
    [ -e "$loader" ] && { say musl; return; }
  done
  say glibc
}

target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no hermes-mcp build for the $arch processor (builds exist for x86_64 and arm64)" ;;
  esac
  case "$os" in
    Linux)
      if [ "$(libc)" = musl ]; then say "hermes-mcp-linux-$arch-musl"; else say "hermes-mcp-linux-$arch"; fi
      ;;
    Darwin)
      # An Intel shell under Rosetta on Apple silicon still wants the native arm64 build.
      if [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then arch=arm64; fi
      say "hermes-mcp-darwin-$arch"
      ;;
    MINGW* | MSYS* | CYGWIN*) die "on Windows download hermes-mcp-windows-x64.exe and SHA256SUMS by hand (see the README)" ;;
    *) die "no hermes-mcp build for $os" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    die "cannot check the download: install sha256sum (coreutils), shasum or openssl"
  fi
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https' --tlsv1.2 -o "$2" "$1" || die "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || die "could not download $1"
  else
    die "neither curl nor wget is installed; download the files by hand and run: sh install.sh --from FOLDER"
  fi
}

file=$(target)
if [ "$print_target" = 1 ]; then
  say "$file"
  exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-mcp-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
if [ -n "$from" ]; then
  [ -f "$from/$file" ] || die "$from has no $file (the build for this machine)"
  [ -f "$from/SHA256SUMS" ] || die "$from has no SHA256SUMS, so $file cannot be checked"
  cp "$from/$file" "$work/$file"
  cp "$from/SHA256SUMS" "$work/SHA256SUMS"
else
  say "Downloading $file from $RELEASE_URL …"
  download "$RELEASE_URL/SHA256SUMS" "$work/SHA256SUMS"
  download "$RELEASE_URL/$file" "$work/$file"
fi

# The checksum line for exactly this file name ("HASH  NAME", or "HASH *NAME" from sha256sum -b).
expected=$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1; exit }' "$work/SHA256SUMS")
[ -n "$expected" ] || die "SHA256SUMS lists no $file; refusing to install an unchecked binary"
actual=$(sha256 "$work/$file")
[ "$actual" = "$expected" ] || die "checksum mismatch for $file (expected $expected, got $actual): the file is damaged or was tampered with; nothing was installed"

bindir="$prefix/bin"
mkdir -p "$bindir" || die "cannot create $bindir"
# Copy beside the target, then rename over it: a running service keeps its old binary until it restarts.
cp "$work/$file" "$bindir/.hermes-mcp.new"
chmod 755 "$bindir/.hermes-mcp.new"
mv -f "$bindir/.hermes-mcp.new" "$bindir/hermes-mcp"
version=$("$bindir/hermes-mcp" --version 2>/dev/null) || die "installed $bindir/hermes-mcp, but it does not run on this machine"

say "Installed $bindir/hermes-mcp ($version), checksum verified."
case ":${PATH:-}:" in
  *":$bindir:"*) run=hermes-mcp ;;
  *)
    run="$bindir/hermes-mcp"
    say "$bindir is not on your PATH: add  export PATH=\"$bindir:\$PATH\"  to ~/.profile (or ~/.zshrc)."
    ;;
esac
say ""
say "Next: $run service install      (writes the env file with a new OAuth client, starts the service)"
say "      $run doctor               (then set OAUTH_ISSUER_URL for your tunnel; see the README's quick start)"
