#!/usr/bin/env bash
# Installs what tests/test_protoc.py runs, when it is missing: Debian's protoc with its plugins for
# C++, Java and Go, the headers and jars their output compiles against, g++, a JDK, Node.js and Go
# (Debian's golang-go, 1.19: 81 MB to fetch, 464 MB installed), rustc (59 MB to fetch, 270 MB
# installed) and lua5.4 (tiny); then
# @grpc/proto-loader for the JavaScript check, at tests/protoc's locked versions, with npm.
# Idempotent; safe on a fresh machine (run as root). `make test` runs it (`make protoc`).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
# need PACKAGE COMMAND-OR-FILE: the Debian package that provides it, unless it is there
need() { command -v "$2" >/dev/null 2>&1 || [ -e "$2" ] || missing+=("$1"); }
need protobuf-compiler protoc
need protobuf-compiler-grpc grpc_cpp_plugin
need protoc-gen-go protoc-gen-go
need protoc-gen-go-grpc protoc-gen-go-grpc
need protobuf-compiler-grpc-java-plugin grpc_java_plugin
need g++ g++
need libprotobuf-dev /usr/include/google/protobuf/message.h
need libgrpc++-dev /usr/include/grpcpp/grpcpp.h
need default-jdk-headless javac
need libprotobuf-java /usr/share/java/protobuf.jar
need libgrpc-java /usr/share/java/grpc-stub.jar
need nodejs node
need npm npm
need golang-go go  # and the host's node and go for tests/kits/test_local_loop.py (a kit bot run on the host)
need rustc rustc   # the recipes of docs/writing-a-bot.md that tests/sandbox/test_recipes.py tries (the JDK
need lua5.4 lua5.4 # above has jlink)

if [ "${#missing[@]}" -gt 0 ]; then
  echo "protoc-up: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm keeps its own copy of the lock file in node_modules: newer than ours means installed from it
js=tests/protoc
if [ ! "$js/node_modules/.package-lock.json" -nt "$js/package-lock.json" ]; then
  echo "protoc-up: installing $js's npm packages (npm ci)" >&2
  (cd "$js" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
