#!/usr/bin/env bash
# Builds the base of the service images without a Docker engine or a container registry: Debian's
# OpenJDK 17 JRE (headless) on glibc, from the packages of this machine's own apt sources, as an
# image tarball (docker save format) that Jib's tar:// base reads and docker load accepts.
#
#   build-base-image.sh TARGET_DIR JDK_HOME IMAGE_REFERENCE
#
# TARGET_DIR receives jre-base.tar; JDK_HOME is a JDK (17 or later) that builds the Java trust
# store. Needs apt-get and dpkg-deb (a Debian or Ubuntu machine), not root. A second run with the
# same script reuses the tarball; `./mvnw -Pimages clean` takes newer packages.
set -euo pipefail

target=$(mkdir -p "$1" && cd "$1" && pwd)
jdk_home=$2
reference=$3
here=$(cd "$(dirname "$0")" && pwd)
tarball="$target/jre-base.tar"
stamp="$target/jre-base.stamp"

inputs=$(cat "$0" "$here/CaCerts.java" | sha256sum | cut -d' ' -f1)
if [ -f "$tarball" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$inputs" ]; then
  echo "container-base: $tarball is up to date"
  exit 0
fi

for tool in apt-get dpkg-deb tar gzip sha256sum; do
  if ! command -v "$tool" >/dev/null; then
    echo "container-base: $tool not found; this base is assembled from Debian packages." >&2
    echo "  On another system, build the images on a registry base instead:" >&2
    echo "  ./mvnw -B -Pimages package -DskipTests -Djib.from.image=eclipse-temurin:17-jre" >&2
    exit 1
  fi
done

# The JRE and what it loads (glibc, libstdc++, libgcc, zlib), libc-bin for the C.UTF-8 locale (with
# LANG=C.UTF-8 it makes UTF-8 Java 17's default charset), the CA certificates; bash, grep and
# coreutils for the compose healthchecks (bash's /dev/tcp, grep, head) and a shell to look around;
# base-files for /etc/os-release, which image scanners read.
packages=(
  base-files
  libc6 libc-bin libgcc-s1 libstdc++6 zlib1g
  openjdk-17-jre-headless
  ca-certificates
  bash libtinfo6
  coreutils libacl1 libattr1 libgmp10 libselinux1 libpcre2-8-0
  grep
)

work="$target/jre-base-work"
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/rootfs"
# Package lists of its own, so neither root nor a fresh `apt-get update` of the machine is needed.
apt_options=(-q -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
  -o Debug::NoLocking=1)
if [ "$(id -u)" = 0 ]; then
  apt_options+=(-o APT::Sandbox::User=root)
fi
echo "container-base: reading the package lists of this machine's apt sources"
apt-get "${apt_options[@]}" update >"$work/apt-update.log" 2>&1 \
  || { cat "$work/apt-update.log" >&2; exit 1; }
echo "container-base: downloading ${packages[*]}"
(cd "$work/debs" && apt-get "${apt_options[@]}" download "${packages[@]}" >"$work/apt-download.log" 2>&1) \
  || { cat "$work/apt-download.log" >&2; exit 1; }

rootfs="$work/rootfs"
mkdir -p "$rootfs/var/lib/dpkg/status.d"
: >"$work/packages.txt"
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$rootfs"
  name=$(dpkg-deb -f "$deb" Package)
  # One control file per package where distroless images keep theirs, for scanners.
  dpkg-deb -f "$deb" >"$rootfs/var/lib/dpkg/status.d/$name"
  echo "$name $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)" >>"$work/packages.txt"
done
architecture=$(dpkg-deb -f "$work"/debs/libc6_*.deb Architecture)

# What a container never reads; the licences (/usr/share/doc/*/copyright) stay.
find "$rootfs/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/locale" \
  "$rootfs/usr/share/lintian" "$rootfs/usr/share/bash-completion" "$rootfs/usr/share/menu"

java_home=$(cd "$rootfs" && echo usr/lib/jvm/java-17-openjdk-*)
[ -x "$rootfs/$java_home/bin/java" ] || { echo "container-base: no JRE in $java_home" >&2; exit 1; }
mkdir -p "$rootfs/usr/bin"
ln -sf "/$java_home/bin/java" "$rootfs/usr/bin/java"
ln -sf "/$java_home/bin/keytool" "$rootfs/usr/bin/keytool"

# The trust store the JRE's lib/security/cacerts links to (ca-certificates-java builds it at
# install time), and the PEM bundle other clients read (update-ca-certificates).
mkdir -p "$rootfs/etc/ssl/certs/java"
find "$rootfs/usr/share/ca-certificates" -name '*.crt' | sort | xargs cat \
  >"$rootfs/etc/ssl/certs/ca-certificates.crt"
"$jdk_home/bin/java" "$here/CaCerts.java" "$rootfs/usr/share/ca-certificates" \
  "$rootfs/etc/ssl/certs/java/cacerts"

# Users, name lookup and writable places; the images run as nonroot (65532), as distroless does.
cat >"$rootfs/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/usr/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/usr/sbin/nologin
PASSWD
cat >"$rootfs/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
echo 'hosts: files dns' >"$rootfs/etc/nsswitch.conf"
mkdir -p "$rootfs/tmp" "$rootfs/root" "$rootfs/home/nonroot"
chmod 1777 "$rootfs/tmp"
chmod 700 "$rootfs/root"
chmod 755 "$rootfs/home/nonroot"
mkdir -p "$rootfs/usr/share/inbox-outbox"
cp "$work/packages.txt" "$rootfs/usr/share/inbox-outbox/base-packages.txt"

# One layer; every file root's but nonroot's home, every time the epoch, so the same packages
# give the same layer digest.
layer="$work/layer.tar"
tar_options=(--sort=name --format=gnu --mtime=@0 --numeric-owner)
tar -C "$rootfs" "${tar_options[@]}" --owner=0 --group=0 --exclude=./home/nonroot -cf "$layer" .
tar -C "$rootfs" "${tar_options[@]}" --owner=65532 --group=65532 -rf "$layer" ./home/nonroot
diff_id=$(sha256sum "$layer" | cut -d' ' -f1)
gzip -n -6 "$layer"

image="$work/image"
mkdir -p "$image"
mv "$layer.gz" "$image/$diff_id.tar.gz"
cat >"$image/config.json" <<CONFIG
{
  "architecture": "$architecture",
  "os": "linux",
  "created": "1970-01-01T00:00:00Z",
  "config": {
    "User": "65532:65532",
    "Env": [
      "PATH=/$java_home/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "JAVA_HOME=/$java_home",
      "LANG=C.UTF-8"
    ],
    "Entrypoint": ["/usr/bin/java"],
    "Cmd": ["-version"],
    "WorkingDir": "/home/nonroot",
    "Labels": {
      "org.opencontainers.image.title": "inbox-outbox JRE base",
      "org.opencontainers.image.description": "Debian packages: $(tr '\n' ';' <"$work/packages.txt" | sed 's/;$//; s/;/, /g')"
    }
  },
  "rootfs": {"type": "layers", "diff_ids": ["sha256:$diff_id"]},
  "history": [{"created": "1970-01-01T00:00:00Z", "created_by": "container-base/build-base-image.sh"}]
}
CONFIG
cat >"$image/manifest.json" <<MANIFEST
[{"Config": "config.json", "RepoTags": ["$reference"], "Layers": ["$diff_id.tar.gz"]}]
MANIFEST
tar -C "$image" "${tar_options[@]}" --owner=0 --group=0 -cf "$tarball.part" manifest.json config.json "$diff_id.tar.gz"
mv "$tarball.part" "$tarball"
mv "$work/packages.txt" "$target/jre-base-packages.txt"
rm -rf "$work"
echo "$inputs" >"$stamp"
echo "container-base: $tarball ($reference, $architecture, $(du -h "$tarball" | cut -f1)):"
sed 's/^/  /' "$target/jre-base-packages.txt"
