#!/bin/sh
# A local base image for deploy/Dockerfile when the registry's python:3.11-slim-bookworm cannot be pulled:
# Debian bookworm (minbase) with python3 and venv, made by debootstrap from the Debian mirror apt already uses,
# imported into podman. Prints the image's name. The name carries a hash of this script, the mirror and the
# host's CA bundle, so a rerun with an unchanged recipe reuses the image and returns at once.
#   deploy/base-image.sh            -> localhost/mazziere-base:<hash>
# Needs root (debootstrap), debootstrap and podman. DEBIAN_MIRROR overrides the mirror.
set -eu

SUITE=bookworm
PACKAGES=python3,python3-venv,ca-certificates
# The host's trust store goes into the image, so pip inside the build trusts what the host trusts (a proxy's CA).
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
HASH=$( { cat "$0"; echo "$MIRROR"; cat "$CA_BUNDLE" 2>/dev/null || true; } | sha256sum | cut -c1-16)
IMAGE=localhost/mazziere-base:$HASH

if podman image exists "$IMAGE"; then
    echo "$IMAGE"
    exit 0
fi

ROOTFS=$(mktemp -d "${TMPDIR:-/tmp}/mazziere-base.XXXXXX")
trap 'rm -rf "$ROOTFS"' EXIT
echo "debootstrap $SUITE ($PACKAGES) from $MIRROR" >&2
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" > "$ROOTFS.log" 2>&1 \
    || { cat "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"
if [ -f "$CA_BUNDLE" ]; then cp "$CA_BUNDLE" "$ROOTFS/etc/ssl/certs/ca-certificates.crt"; fi
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/* "$ROOTFS"/tmp/*
tar -C "$ROOTFS" -c . | podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["python3"]' - "$IMAGE" > /dev/null
echo "$IMAGE"
