#!/bin/sh
# Local base images for deploy/Dockerfile where the registry's cannot be pulled, made by debootstrap from the
# Debian mirror apt already uses and imported into podman. Prints the image's name. The name carries a hash of
# this script, the kind, the mirror and the host's CA bundle, so a rerun with an unchanged recipe reuses the
# image and returns at once.
#   deploy/base-image.sh            -> localhost/mazziere-base:<hash>       for python:3.11-slim-bookworm:
#                                      Debian bookworm (minbase) with python3 (3.11) and venv
#   deploy/base-image.sh node       -> localhost/mazziere-node-base:<hash>  for the web table's build stage:
#                                      Debian trixie (minbase) with nodejs (20) and npm (installed by apt inside,
#                                      since debootstrap's own resolver misses some of npm's dependencies)
# Needs root (debootstrap, chroot), debootstrap and podman. DEBIAN_MIRROR overrides the mirror.
set -eu

KIND=${1:-python}
case "$KIND" in
    python)
        SUITE=bookworm
        PACKAGES=python3,python3-venv,ca-certificates
        APT_PACKAGES=
        NAME=localhost/mazziere-base
        # pip inside the build trusts the image's bundle (the host's, below).
        CHANGES="ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt|CMD [\"python3\"]"
        ;;
    node)
        # The web table needs Node.js 20 or later (clients/web/package.json): bookworm has 18, trixie 20.
        SUITE=trixie
        PACKAGES=nodejs,ca-certificates
        APT_PACKAGES=npm
        NAME=localhost/mazziere-node-base
        # npm inside the build trusts the image's bundle (the host's, below) on top of Node's own.
        CHANGES="ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt|CMD [\"node\"]"
        ;;
    *)
        echo "usage: $0 [python|node]" >&2
        exit 2
        ;;
esac
# The host's trust store goes into the image, so pip and npm inside the build trust what the host trusts (a
# proxy's CA).
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt

mirror() {
    if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
    # The first Debian archive (not -security) among apt's sources, one-line or deb822 format.
    found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | sed -n -e 's|^deb \(\[[^]]*\] \)\{0,1\}\([a-z]*://[^ ]*/debian/\{0,1\}\) .*|\2|p' \
                 -e 's|^URIs: *\([a-z]*://[^ ]*/debian/\{0,1\}\)$|\1|p' | head -n 1)
    echo "${found:-http://deb.debian.org/debian}"
}

MIRROR=$(mirror)
HASH=$( { cat "$0"; echo "$KIND"; echo "$MIRROR"; cat "$CA_BUNDLE" 2>/dev/null || true; } | sha256sum | cut -c1-16)
IMAGE=$NAME:$HASH

if podman image exists "$IMAGE"; then
    echo "$IMAGE"
    exit 0
fi

ROOTFS=$(mktemp -d "${TMPDIR:-/tmp}/mazziere-base.XXXXXX")
trap 'rm -rf "$ROOTFS" "$ROOTFS.log"' EXIT
echo "debootstrap $SUITE ($PACKAGES${APT_PACKAGES:+, then apt-get $APT_PACKAGES}) from $MIRROR" >&2
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" > "$ROOTFS.log" 2>&1 \
    || { cat "$ROOTFS.log" >&2; exit 1; }
if [ -n "$APT_PACKAGES" ]; then
    # apt inside the new system, from the mirror debootstrap wrote into its sources, with the host's DNS.
    cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
    chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $APT_PACKAGES" \
        > "$ROOTFS.log" 2>&1 || { cat "$ROOTFS.log" >&2; exit 1; }
    : > "$ROOTFS/etc/resolv.conf"
fi
if [ -f "$CA_BUNDLE" ]; then cp "$CA_BUNDLE" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"; fi
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/* "$ROOTFS"/tmp/*
ENV_CHANGE=${CHANGES%%|*}
CMD_CHANGE=${CHANGES#*|}
tar -C "$ROOTFS" -c . | podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "$ENV_CHANGE" \
    --change "$CMD_CHANGE" - "$IMAGE" > /dev/null
echo "$IMAGE"
