#!/usr/bin/env bash
# Runs an image tarball (docker save format, as Jib's buildTar writes it) without a Docker engine,
# to check that an image built here starts: its layers unpacked in order into a directory, then its
# entrypoint and command run there as its user, with its environment and working directory, in a
# mount and PID namespace of their own with /proc, /dev and the machine's /etc/hosts and
# /etc/resolv.conf, as a container has them. The machine's network is the container's.
#
#   sudo container-base/run-image.sh [-e NAME=VALUE]... [--entrypoint PROGRAM] TARBALL [ARG...]
#
# As with docker run: -e adds to the image's environment, --entrypoint replaces its entrypoint and
# ARGs its command (CMD). Needs root (chroot), jq and util-linux's unshare. IMAGE_ROOT=DIR unpacks
# the file system into DIR and keeps it; a second run on the same DIR (a command beside a running
# one, as docker exec) uses it as it is.
set -euo pipefail

extra_environment=()
entrypoint_override=
while [ $# -gt 0 ]; do
  case $1 in
    -e) extra_environment+=("$2"); shift 2 ;;
    --entrypoint) entrypoint_override=$2; shift 2 ;;
    *) break ;;
  esac
done
tarball=$(realpath "$1")
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=${IMAGE_ROOT:-$work/root}
mkdir -p "$work/image" "$root"
tar -xf "$tarball" -C "$work/image"
config="$work/image/$(jq -r '.[0].Config' "$work/image/manifest.json")"

unpacked="$root/.run-image-unpacked"
[ -f "$unpacked" ] || while read -r layer; do
  tar -xf "$work/image/$layer" -C "$root" --numeric-owner --warning=no-unknown-keyword
  # Whiteouts: a later layer deletes a file of an earlier one.
  find "$root" -name '.wh.*' -print0 | while IFS= read -r -d '' whiteout; do
    name=$(basename "$whiteout")
    if [ "$name" = .wh..wh..opq ]; then
      find "$(dirname "$whiteout")" -mindepth 1 -maxdepth 1 ! -name "$name" -exec rm -rf {} +
    else
      rm -rf "$(dirname "$whiteout")/${name#.wh.}"
    fi
    rm -f "$whiteout"
  done
done < <(jq -r '.[0].Layers[]' "$work/image/manifest.json")
touch "$unpacked"

mapfile -t environment < <(jq -r '.config.Env // [] | .[]' "$config")
environment+=("${extra_environment[@]}")
mapfile -t entrypoint < <(jq -r '.config.Entrypoint // [] | .[]' "$config")
if [ -n "$entrypoint_override" ]; then
  entrypoint=("$entrypoint_override")
  command=()
fi
if [ $# -gt 0 ]; then
  command=("$@")
elif [ -z "$entrypoint_override" ]; then
  mapfile -t command < <(jq -r '.config.Cmd // [] | .[]' "$config")
fi
user=$(jq -r '.config.User // "0:0"' "$config")
workdir=$(jq -r '.config.WorkingDir // "/"' "$config")
workdir=${workdir:-/}
uid=${user%%:*}
gid=${user#*:}
[ "$gid" = "$user" ] && gid=$uid
if ! [[ $uid =~ ^[0-9]+$ && $gid =~ ^[0-9]+$ ]]; then
  echo "run-image: user $user is not numeric uid:gid" >&2
  exit 2
fi

mkdir -p "$root/proc" "$root/dev" "$root/etc" "$root$workdir"
cp /etc/hosts /etc/resolv.conf "$root/etc/" 2>/dev/null || true
echo "run-image: ${entrypoint[*]} ${command[*]} (user $uid:$gid, in $workdir)" >&2
set +e
env -i "${environment[@]}" unshare --mount --pid --fork --kill-child -- /bin/sh -c '
  root=$1 workdir=$2 uid=$3 gid=$4
  shift 4
  mount --rbind /dev "$root/dev" && mount -t proc proc "$root/proc" || exit 125
  exec unshare --root="$root" --wd="$workdir" --setgid "$gid" --setuid "$uid" -- "$@"
' run-image "$root" "$workdir" "$uid" "$gid" "${entrypoint[@]}" "${command[@]}"
status=$?
echo "run-image: exit code $status" >&2
exit $status
