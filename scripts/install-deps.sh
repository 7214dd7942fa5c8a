#!/usr/bin/env bash
# Installs what neuronc needs from Debian's packages. Idempotent: runs `apt-get update` only when
# a package is missing, and installs only the missing ones. Works as root with no prompts.
set -euo pipefail

PKGS=(
  cmake ninja-build g++
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx libonnx-testdata
  python3-torch python3-torchvision
  chromium
  fonts-dejavu-core
  nginx
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
