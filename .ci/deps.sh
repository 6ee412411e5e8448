#!/bin/sh
# Install the Debian packages qzdb builds and tests with, if any is missing.
# Runs apt-get as root, through sudo otherwise.
PKGS="gcc make pkg-config libdwarf-dev libelf-dev zlib1g-dev libcapstone-dev
libzydis-dev libncurses-dev gdb tmux time libc6-dbg clang libclang-rt-14-dev
csmith libcsmith-dev libseccomp-dev valgrind libjansson-dev libunicorn-dev libzstd-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "qzdb: installing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq || exit 1
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null || exit 1
