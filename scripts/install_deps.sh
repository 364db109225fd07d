#!/usr/bin/env bash
# Installs the Debian packages this course builds with, but only those missing.
# Idempotent; runs as root (no sudo needed) or through sudo when not root.
set -euo pipefail

packages=(
  cmake g++ make ninja-build pkg-config
  libxtensor-dev xtl-dev libopenblas-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libopencc-dev opencc
  qemu-user unicode-data python3 libcpp-httplib-dev libmicrohttpd-dev
)
# qemu-user runs the lesson path on emulated CPUs (tests: other_cpus_logits,
# scripts/check_other_cpus.sh).
# python3 reads the training log in scripts/fault_drill.sh (the fault_drill test).
# libcpp-httplib-dev is the HTTP client of lesson 11's tests and serve_bench; libmicrohttpd-dev
# (GNU libmicrohttpd) is poem_server's HTTP server.
# unicode-data ships Unihan (Unihan_Readings.txt.bz2: kCantonese, kMandarin), the second
# source of data/tones.tsv (scripts/rebuild_verse_data.sh, verse_data_rebuild_test).
# Extra tools some optional steps use: --fuzz adds clang for the fuzzers and the
# sanitizer preset (clang builds it in a third of gcc's time; its OpenMP is libomp) (CI);
# --extras adds those plus NumPy (golden tensors), gnuplot and a Chinese font (charts),
# Graphviz (the model diagram of docs/README.md) and PyTorch (the peer).
# --browser adds headless Chromium and Selenium for lesson 11's page test (CI); the
# test is skipped without them. --client adds Node and npm, then OpenAI's own Node
# client (npm openai, the version tests/openai_client/package-lock.json pins) into
# tests/openai_client/node_modules, for the openai_client test (CI; needs the npm
# registry); and llama.cpp as the npm package node-llama-cpp with its prebuilt Linux CPU
# binary (the versions tests/llama_cpp/package-lock.json pins; nothing compiled, no
# install scripts run, nothing downloaded but the two packages and their dependencies)
# into tests/llama_cpp/node_modules, for llama_cpp_test. Both tests are skipped without them.
fuzz=(clang libclang-rt-14-dev libomp-14-dev)
browser=(chromium chromium-driver python3-selenium)
client=(nodejs)  # and npm, unless the nodejs installed brings its own
extras=("${fuzz[@]}" "${browser[@]}" python3-numpy gnuplot-nox fonts-wqy-microhei graphviz
        python3-torch)
with_client=0
for option in "$@"; do
  case "$option" in
    --fuzz) packages+=("${fuzz[@]}") ;;
    --browser) packages+=("${browser[@]}") ;;
    --client) packages+=("${client[@]}"); with_client=1 ;;
    --extras) packages+=("${extras[@]}") ;;
    *) echo "install_deps.sh: unknown option $option (--fuzz, --browser, --client, --extras)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((with_client)) && ! command -v npm >/dev/null; then
  missing+=(npm)
fi

if ((${#missing[@]} > 0)); then
  echo "installing: ${missing[*]}"
  as_root=()
  if [[ $(id -u) -ne 0 ]]; then as_root=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --client: OpenAI's Node client and llama.cpp at the versions the lock files pin (again
# only when a lock file changed since the last install).
if ((with_client)); then
  client_dir="$(cd "$(dirname "$0")/.." && pwd)/tests/openai_client"
  if [[ ! -f "$client_dir/node_modules/.package-lock.json" ||
        "$client_dir/package-lock.json" -nt "$client_dir/node_modules/.package-lock.json" ]]; then
    echo "installing OpenAI's Node client into tests/openai_client/node_modules"
    (cd "$client_dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  # llama.cpp: node-llama-cpp and @node-llama-cpp/linux-x64 (its prebuilt binary), both
  # 3.22.1. --omit=optional leaves out the other platforms' and the GPU binaries;
  # --ignore-scripts skips the package's postinstall (which would build or download).
  # npm install, not npm ci: the lock file names only the Linux binaries (the registry
  # it was made from had no others), which npm ci would refuse as out of sync.
  llama_dir="$(dirname "$client_dir")/llama_cpp"
  if [[ ! -f "$llama_dir/node_modules/.package-lock.json" ||
        "$llama_dir/package-lock.json" -nt "$llama_dir/node_modules/.package-lock.json" ]]; then
    echo "installing llama.cpp (node-llama-cpp 3.22.1, prebuilt) into tests/llama_cpp/node_modules"
    (cd "$llama_dir" &&
      npm install --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
fi
