# Sourced by run.sh and scale.sh (from the repository root, with OUT and XMX set): builds the
# benchmarks unless JOBBENCH_SKIP_BUILD=1, copies this worktree's jars to $OUT/lib (a rebuild during
# a long run must not change the code under it; JOBBENCH_LIB=DIR, an earlier run's OUTDIR/lib, runs
# that code instead, for a before/after in one session), and sets JAVA: the command line that runs
# a benchmark class with the JVM flags Flink needs.
if [[ "${JOBBENCH_SKIP_BUILD:-0}" != 1 || ! -f jobbench/target/classpath.txt ]]; then
  echo "building (mvn -o package, tests skipped)..." >&2
  mvn -B -ntp -q -o -pl jobbench -am package -DskipTests
fi
LIB="$OUT/lib"
IFS=: read -r -a DEPS < jobbench/target/classpath.txt || true  # the file has no final newline
if [[ -n "${JOBBENCH_LIB:-}" ]]; then
  LIB=$(cd "$JOBBENCH_LIB" && pwd)
  CP="$LIB/urldedup-jobbench.jar"
  for d in "${DEPS[@]}"; do
    if [[ "$d" == "$PWD"/* ]]; then CP="$CP:$LIB/$(basename "$d")"; else CP="$CP:$d"; fi
  done
else
  rm -rf "$LIB" && mkdir -p "$LIB"
  CP="$LIB/urldedup-jobbench.jar"
  cp jobbench/target/urldedup-jobbench-0.1.0-SNAPSHOT.jar "$CP"
  for d in "${DEPS[@]}"; do
    if [[ "$d" == "$PWD"/* ]]; then
      cp "$d" "$LIB/" && CP="$CP:$LIB/$(basename "$d")"
    else
      CP="$CP:$d"
    fi
  done
fi
OPENS_LINE="$(deploy/java-opens.sh)"
read -r -a OPENS <<< "$OPENS_LINE"
# JOBBENCH_JVM_FLAGS: more JVM flags, e.g. -XX:StartFlightRecording=filename=x.jfr,settings=profile
read -r -a EXTRA_JVM <<< "${JOBBENCH_JVM_FLAGS:-}"
JAVA=(java -Xms1g "-Xmx$XMX" -XX:+UseG1GC "${OPENS[@]}" "${EXTRA_JVM[@]}"
  "-Dlog4j.configurationFile=$PWD/jobbench/src/main/resources/log4j2-jobbench.properties" -cp "$CP")

