#!/usr/bin/env bash
# check_fresh_machine.sh: runs the README's two commands on a brand-new Debian 12
# root, the machine a learner starts from, to prove that the repository's own
# scripts install everything its lessons and tests call.
#
# As root, from the repository root:
#
#   scripts/check_fresh_machine.sh            a new root in build/fresh-root, then both commands
#   ROOT=/tmp/r scripts/check_fresh_machine.sh  somewhere else
#   KEEP=1 scripts/check_fresh_machine.sh     reuse a root made before (skip debootstrap)
#
# The root is `debootstrap --variant=minbase bookworm` from Debian's own mirror,
# plus git and ca-certificates, nothing else. The repository goes in as a clone
# of this checkout's last commit (commit what you want checked), so the check
# sees exactly what a learner's `git clone` sees. Inside it runs, as root:
#
#   scripts/run_lesson.sh   (lesson 06, the whole lesson)
#   scripts/test.sh         (the whole suite)
#
# and exits with the first one that fails. Takes about 40 minutes on two cores
# (the two builds are the same tree, so the second command only runs the tests).
# Logs: <root>/fresh-check/{run_lesson,test}.log.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

if [[ $(id -u) -ne 0 ]]; then
  echo "check_fresh_machine.sh: needs root (debootstrap and chroot): run it with sudo" >&2
  exit 2
fi
root="${ROOT:-$repo/build/fresh-root}"
mirror="${MIRROR:-http://deb.debian.org/debian}"

if ! command -v debootstrap >/dev/null; then
  echo "== installing debootstrap (Debian's package)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_in() {  # mount_in <type-or-bind> <source> <target inside root>
  mkdir -p "$root$3"
  if [[ $1 == bind ]]; then mount --bind "$2" "$root$3"; else mount -t "$1" "$2" "$root$3"; fi
  mounted+=("$root$3")
}

if [[ "${KEEP:-0}" != 1 || ! -x "$root/bin/bash" ]]; then
  if [[ -e $root ]]; then
    # only a root this script made may be replaced
    if [[ ! -f $root/.made-by-check-fresh-machine ]]; then
      echo "check_fresh_machine.sh: $root exists and was not made by this script;" \
           "remove it or choose another ROOT=" >&2
      exit 2
    fi
    rm -rf --one-file-system "$root"
  fi
  echo "== debootstrap bookworm (minbase) into $root"
  mkdir -p "$root"
  debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
    > "$root.debootstrap.log" 2>&1 || {
    echo "check_fresh_machine.sh: debootstrap failed (log: $root.debootstrap.log)" >&2
    exit 1
  }
  touch "$root/.made-by-check-fresh-machine"
fi

echo "== cloning this checkout's last commit ($(git rev-parse --short HEAD)) into the root"
rm -rf "$root/course"
git clone --quiet --no-hardlinks "$repo" "$root/course"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_in proc proc /proc
mount_in sysfs sys /sys
mount_in bind /dev /dev
mount_in devpts devpts /dev/pts

mkdir -p "$root/fresh-check"
in_root() {  # in_root <log name> <command...>: PATH and HOME of a fresh root login
  local log="$root/fresh-check/$1.log"
  shift
  echo "== in the fresh root: $* (log: $log)"
  local start=$SECONDS status=0
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /course && $*" > "$log" 2>&1 || status=$?
  echo "   exit $status after $((SECONDS - start)) s; last lines:"
  tail -n 4 "$log" | sed 's/^/   | /'
  return "$status"
}

in_root run_lesson scripts/run_lesson.sh
in_root test scripts/test.sh
echo "check_fresh_machine.sh: both README commands passed on a fresh Debian 12 root"
