#!/usr/bin/env bash
# Prints, on one line, the module opens and exports Flink needs on Java 17 (flink-dist's
# env.java.opts.all), from their one source: the flink.test.opens property of the root pom.xml,
# which the tests' JVMs get too. Used by ./urldedup, deploy/local/stack.sh and jobbench/java-env.sh.
set -euo pipefail
pom="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/pom.xml"
opens="$(sed -n 's:.*<flink.test.opens>\(.*\)</flink.test.opens>.*:\1:p' "$pom")"
if [ -z "$opens" ]; then
  echo "java-opens: no <flink.test.opens> in $pom" >&2
  exit 1
fi
echo "$opens"
