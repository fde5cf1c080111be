#!/usr/bin/env bash
# A real local stack on loopback, from Maven jars: one KRaft Kafka 4.2.0 broker (combined
# broker+controller) and a Flink 2.2.1 standalone session cluster (JobManager and TaskManager as
# separate JVMs, Web UI, RocksDB, Prometheus reporter). Everything it writes (jars, data, logs, pid
# files) is under $URLDEDUP_STACK_DIR (default deploy/local/.work, gitignored); ports and topic names
# can be overridden by the environment variables below (e2e.sh runs a second stack that way).
#
#   stack.sh up        fetch jars (first time), start what is not running, create the topics
#   stack.sh down      stop the processes this script started (pid files), nothing else
#   stack.sh status    processes, broker, Flink /overview, jobs
#   stack.sh topics    list topics with partition counts and end offsets
#   stack.sh submit [ARGS...]   submit the job jar detached (Kafka/topic flags filled in; ARGS appended)
#   stack.sh cancel JOBID
#   stack.sh logs [kafka|jobmanager|taskmanager]
#   stack.sh env       print the ports and topics as shell assignments
#   stack.sh kafka-cp | flink-cp   print a classpath (for the console tools)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
WORK="${URLDEDUP_STACK_DIR:-$HERE/.work}"
# the jars are shared between stacks (e2e.sh runs its own stack under .work/e2e)
LIB="${URLDEDUP_STACK_LIB:-$HERE/.work/lib}"
LOGS="$WORK/logs"
PIDS="$WORK/pids"
CONF="$WORK/conf"

# Non-default ports so that a developer's own Kafka (9092) or Flink (8081) does not collide.
KAFKA_PORT="${KAFKA_PORT:-19092}"
CONTROLLER_PORT="${CONTROLLER_PORT:-19093}"
FLINK_REST_PORT="${FLINK_REST_PORT:-18081}"
FLINK_RPC_PORT="${FLINK_RPC_PORT:-16123}"
PROM_JM_PORT="${PROM_JM_PORT:-19249}"
PROM_TM_PORT="${PROM_TM_PORT:-19250}"
BOOTSTRAP="127.0.0.1:$KAFKA_PORT"
INPUT_TOPIC="${INPUT_TOPIC:-urldedup.in}"
OUTPUT_TOPIC="${OUTPUT_TOPIC:-urldedup.out}"
DLQ_TOPIC="${DLQ_TOPIC:-urldedup.dlq}"
GROUP_ID="${GROUP_ID:-urldedup}"
JOB_JAR="${JOB_JAR:-$REPO/job/target/urldedup-job.jar}"

JAVA="${JAVA:-java}"
# Flink's Java 17 opens (flink-dist config.yaml env.java.opts.all)
FLINK_OPENS="--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED --add-exports=java.management/sun.management=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.util.regex=ALL-UNNAMED --add-opens=java.base/java.security=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.sql/java.sql=ALL-UNNAMED"

log() { echo "stack: $*" >&2; }
die() { echo "stack: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- jars
fetch() {
  local profile
  for profile in kafka flink; do
    if [ ! -f "$LIB/$profile/.complete" ]; then
      log "fetching $profile jars (Maven) into $LIB/$profile"
      mkdir -p "$LIB/$profile" "$LOGS"
      mvn -B -ntp -q -f "$HERE/pom.xml" -P "$profile" dependency:copy-dependencies \
        -DoutputDirectory="$LIB/$profile" >"$LOGS/fetch-$profile.log" 2>&1 \
        || { tail -n 30 "$LOGS/fetch-$profile.log" >&2; die "fetching $profile jars failed (log: $LOGS/fetch-$profile.log)"; }
      touch "$LIB/$profile/.complete"
    fi
  done
}
kafka_cp() { echo "$LIB/kafka/*"; }
flink_cp() { echo "$LIB/flink/*"; }

# ---------------------------------------------------------------- processes
# A pid file counts only while its process is alive and still runs the class we started (pid reuse).
alive() {
  local name="$1" pid
  [ -f "$PIDS/$name.pid" ] || return 1
  pid="$(cat "$PIDS/$name.pid")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-Durldedup.stack=$name" || return 1
}
pid_of() { cat "$PIDS/$1.pid"; }

# start NAME JAVA_ARGS...: detached (own session), stdout/stderr to logs/NAME.out, pid file.
start() {
  local name="$1"; shift
  mkdir -p "$PIDS" "$LOGS"
  setsid nohup "$JAVA" "-Durldedup.stack=$name" "$@" >>"$LOGS/$name.out" 2>&1 </dev/null &
  echo $! >"$PIDS/$name.pid"
}

stop() {
  local name="$1" pid i
  if ! alive "$name"; then rm -f "$PIDS/$name.pid"; return 0; fi
  pid="$(pid_of "$name")"
  log "stopping $name (pid $pid)"
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PIDS/$name.pid"; return 0; }
    sleep 0.5
  done
  log "$name did not stop in 30 s: SIGKILL"
  kill -9 "$pid" 2>/dev/null || true
  sleep 0.5
  rm -f "$PIDS/$name.pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for NAME SECONDS CMD...: until CMD succeeds; fails early when the process died.
wait_for() {
  local name="$1" secs="$2"; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    alive "$name" || { tail -n 40 "$LOGS/$name.out" >&2; die "$name exited during start-up (logs: $LOGS)"; }
    [ "$(date +%s)" -lt "$deadline" ] || die "$name not ready after ${secs}s (logs: $LOGS)"
    sleep 0.3
  done
}

# ---------------------------------------------------------------- Kafka
kafka_config() {
  mkdir -p "$CONF/kafka" "$WORK/kafka-data" "$LOGS"
  cat >"$CONF/kafka/server.properties" <<EOF
# single-node KRaft: broker and controller in one JVM, static voter
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$WORK/kafka-data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# the job's KafkaSink transactions must fit under this (DESIGN.md: the builder default is 1 h)
transaction.max.timeout.ms=900000
log.retention.hours=24
EOF
  cat >"$CONF/kafka/log4j2.properties" <<EOF
appender.file.type = File
appender.file.name = file
appender.file.fileName = $LOGS/kafka.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{1.} - %m%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
  cat >"$CONF/kafka/tools-log4j2.properties" <<EOF
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{ISO8601} %-5p %c{1.} - %m%n
rootLogger.level = WARN
rootLogger.appenderRef.console.ref = console
EOF
}

# kafka_tool CLASS ARGS...: a Kafka CLI tool in the foreground, quiet logging.
kafka_tool() {
  "$JAVA" -Xmx256m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" -cp "$(kafka_cp)" "$@"
}

kafka_ready() { kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list; }

kafka_up() {
  if alive kafka; then log "kafka already running (pid $(pid_of kafka))"; return 0; fi
  port_open "$KAFKA_PORT" && die "port $KAFKA_PORT is taken by a process this script did not start"
  kafka_config
  if [ ! -f "$WORK/kafka-data/meta.properties" ]; then
    local cluster_id
    cluster_id="$("$JAVA" -cp "$(kafka_cp)" -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
      kafka.tools.StorageTool random-uuid)"
    kafka_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$CONF/kafka/server.properties" \
      >>"$LOGS/kafka-format.log" 2>&1 || { cat "$LOGS/kafka-format.log" >&2; die "kafka storage format failed"; }
  fi
  log "starting kafka on $BOOTSTRAP"
  start kafka -Xms512m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$CONF/kafka/log4j2.properties" \
    -cp "$(kafka_cp)" kafka.Kafka "$CONF/kafka/server.properties"
  wait_for kafka 90 port_open "$KAFKA_PORT"
  wait_for kafka 90 kafka_ready
}

create_topic() {
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
    --topic "$1" --partitions "$2" --replication-factor 1 >/dev/null
}

topics_up() {
  # one JVM per topic (TopicCommand takes one): in parallel, they are idempotent (--if-not-exists)
  local p1 p2 p3
  create_topic "$INPUT_TOPIC" 4 & p1=$!
  create_topic "$OUTPUT_TOPIC" 4 & p2=$!
  create_topic "$DLQ_TOPIC" 1 & p3=$!
  wait "$p1" && wait "$p2" && wait "$p3" || die "creating topics failed"
  log "topics: $INPUT_TOPIC (4), $OUTPUT_TOPIC (4), $DLQ_TOPIC (1)"
}

# produce TOPIC < lines: one record per line, no key.
produce() {
  kafka_tool org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BOOTSTRAP" --topic "$1" \
    --command-property linger.ms=20 --command-property batch.size=262144
}

# consume TOPIC TIMEOUT_MS [ARGS...]: committed records from the beginning until idle for TIMEOUT_MS.
consume() {
  local topic="$1" idle="$2"; shift 2
  kafka_tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" --topic "$topic" \
    --from-beginning --isolation-level read_committed --timeout-ms "$idle" "$@" 2>/dev/null || true
}

ensure_samples() {
  if [ ! -f "$REPO/samples/target/classes/io/urldedup/samples/FrontierConsumer.class" ]; then
    log "building samples"
    (cd "$REPO" && mvn -B -ntp -q -pl samples compile) >"$LOGS/build-samples.log" 2>&1 \
      || { tail -n 40 "$LOGS/build-samples.log" >&2; die "samples build failed"; }
  fi
}

# read_topic TOPIC [--print-headers]: every committed record up to the topic's current end (no
# idle-timeout guessing, no consumer group), one a line: partition<TAB>key<TAB>value[<TAB>headers].
read_topic() {
  local topic="$1"; shift
  ensure_samples
  "$JAVA" -Xmx256m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
    -cp "$REPO/samples/target/classes:$(kafka_cp)" io.urldedup.samples.FrontierConsumer \
    --bootstrap-servers "$BOOTSTRAP" --topic "$topic" --print "$@" 2>/dev/null || true
}

# metric NAME: a urldedup metric summed over subtasks, from the TaskManager's Prometheus endpoint
# (flink_taskmanager_job_task_operator_urldedup_NAME); "-" when not served (yet).
metric() {
  { curl -fsS --max-time 3 "http://127.0.0.1:$PROM_TM_PORT/metrics" 2>/dev/null || true; } \
    | awk -v n="flink_taskmanager_job_task_operator_urldedup_$1" \
      '$1 ~ "^"n"\\{" || $1 == n { s += $NF; found = 1 } END { if (found) printf "%d\n", s; else print "-" }'
}

# ---------------------------------------------------------------- Flink
flink_config() {
  mkdir -p "$CONF/flink" "$WORK/flink/tmp" "$WORK/flink/upload" "$WORK/flink/checkpoints" \
    "$WORK/flink/savepoints" "$WORK/flink/rocksdb"
  cat >"$CONF/flink/config.yaml" <<EOF
# Flink 2.x config.yaml (standard YAML). Loopback only, small memory, two slots.
jobmanager:
  rpc:
    address: 127.0.0.1
    port: $FLINK_RPC_PORT
  bind-host: 127.0.0.1
  memory:
    process:
      size: 1g
taskmanager:
  host: 127.0.0.1
  bind-host: 127.0.0.1
  rpc:
    port: 16200-16240
  data:
    port: 0
  numberOfTaskSlots: 2
  memory:
    process:
      size: 2g
blob:
  server:
    port: 16130-16140
rest:
  address: 127.0.0.1
  bind-address: 127.0.0.1
  port: $FLINK_REST_PORT
web:
  upload:
    dir: $WORK/flink/upload
io:
  tmp:
    dirs: $WORK/flink/tmp
parallelism:
  default: 2
state:
  backend:
    type: rocksdb
    rocksdb:
      localdir: $WORK/flink/rocksdb
execution:
  checkpointing:
    dir: file://$WORK/flink/checkpoints
    savepoint-dir: file://$WORK/flink/savepoints
    incremental: true
# restart quickly but not forever: a broken job shows up as FAILED
restart-strategy:
  type: fixed-delay
  fixed-delay:
    attempts: 3
    delay: 2 s
metrics:
  reporter:
    prom:
      factory:
        class: org.apache.flink.metrics.prometheus.PrometheusReporterFactory
      # each JVM gets its own port: stack.sh passes -D metrics.reporter.prom.port
      port: $PROM_JM_PORT
EOF
  cat >"$CONF/flink/log4j.properties" <<'EOF'
monitorInterval = 30
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
logger.akka.name = akka
logger.akka.level = INFO
logger.pekko.name = org.apache.pekko
logger.pekko.level = INFO
logger.kafka.name = org.apache.kafka
logger.kafka.level = WARN
logger.netty.name = org.jboss.netty.channel.DefaultChannelPipeline
logger.netty.level = OFF
appender.main.name = MainAppender
appender.main.type = File
appender.main.append = true
appender.main.fileName = ${sys:log.file}
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
EOF
  cp "$CONF/flink/log4j.properties" "$CONF/flink/log4j-cli.properties"
  sed -i 's|^appender.main.fileName.*|appender.main.fileName = '"$LOGS"'/flink-cli.log|' "$CONF/flink/log4j-cli.properties"
}

# resource_params GET_JM_RESOURCE_PARAMS|GET_TM_RESOURCE_PARAMS: two lines (JVM flags, -D options),
# as Flink's bin/config.sh extracts them from BashJavaUtils.
resource_params() {
  local out
  out="$("$JAVA" -cp "$(flink_cp)" -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
    org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$CONF/flink" 2>&1)" \
    || { echo "$out" >&2; die "BashJavaUtils $1 failed"; }
  out="$(echo "$out" | grep '^BASH_JAVA_UTILS_EXEC_RESULT:' | sed 's/^BASH_JAVA_UTILS_EXEC_RESULT://')"
  [ "$(echo "$out" | wc -l)" -eq 2 ] || die "BashJavaUtils $1: expected 2 result lines, got: $out"
  echo "$out"
}

flink_overview() { curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/overview"; }
tm_registered() { flink_overview | jq -e '.taskmanagers >= 1' >/dev/null; }

flink_up() {
  flink_config
  local params jvm dyn
  if alive jobmanager; then
    log "jobmanager already running (pid $(pid_of jobmanager))"
  else
    port_open "$FLINK_REST_PORT" && die "port $FLINK_REST_PORT is taken by a process this script did not start"
    params="$(resource_params GET_JM_RESOURCE_PARAMS)"
    jvm="$(echo "$params" | head -n1)"; dyn="$(echo "$params" | tail -n1)"
    log "starting flink jobmanager (REST/Web UI http://127.0.0.1:$FLINK_REST_PORT)"
    # shellcheck disable=SC2086 # $jvm, $dyn and $FLINK_OPENS are word lists by design
    start jobmanager $jvm $FLINK_OPENS -Dlog.file="$LOGS/jobmanager.log" \
      -Dlog4j.configurationFile="file:$CONF/flink/log4j.properties" \
      -cp "$(flink_cp)" org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint \
      --configDir "$CONF/flink" -D "metrics.reporter.prom.port=$PROM_JM_PORT" $dyn
  fi
  wait_for jobmanager 120 flink_overview
  if alive taskmanager; then
    log "taskmanager already running (pid $(pid_of taskmanager))"
  else
    params="$(resource_params GET_TM_RESOURCE_PARAMS)"
    jvm="$(echo "$params" | head -n1)"; dyn="$(echo "$params" | tail -n1)"
    # A restarted TaskManager starts its RPC port search one further each time: the JobManager's
    # Pekko remoting keeps the killed process's association to its host:port and drops what a new
    # process on the same port sends ("read-only association"); measured: a TaskManager restarted
    # on the port of the one killed never registered.
    local starts=0
    [ -f "$WORK/flink/tm-starts" ] && starts="$(cat "$WORK/flink/tm-starts")"
    echo $(( starts + 1 )) >"$WORK/flink/tm-starts"
    log "starting flink taskmanager (2 slots, Prometheus http://127.0.0.1:$PROM_TM_PORT/metrics)"
    # shellcheck disable=SC2086
    start taskmanager $jvm $FLINK_OPENS -Dlog.file="$LOGS/taskmanager.log" \
      -Dlog4j.configurationFile="file:$CONF/flink/log4j.properties" \
      -cp "$(flink_cp)" org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
      --configDir "$CONF/flink" -D "metrics.reporter.prom.port=$PROM_TM_PORT" \
      -D "taskmanager.rpc.port=$(( 16200 + starts % 20 ))-16240" $dyn
  fi
  wait_for taskmanager 120 tm_registered
}

# ---------------------------------------------------------------- job
flink_cli() {
  # shellcheck disable=SC2086
  FLINK_CONF_DIR="$CONF/flink" "$JAVA" -Xmx512m $FLINK_OPENS -Dlog.file="$LOGS/flink-cli.log" \
    -Dlog4j.configurationFile="file:$CONF/flink/log4j-cli.properties" \
    -cp "$(flink_cp)" org.apache.flink.client.cli.CliFrontend "$@"
}

ensure_job_jar() {
  if [ ! -f "$JOB_JAR" ]; then
    log "building $JOB_JAR"
    (cd "$REPO" && mvn -B -ntp -q -pl job -am package -DskipTests) >"$LOGS/build-job.log" 2>&1 \
      || { tail -n 40 "$LOGS/build-job.log" >&2; die "job build failed (log: $LOGS/build-job.log)"; }
  fi
}

# submit [ARGS...]: prints the job id on stdout.
submit() {
  ensure_job_jar
  local out id
  out="$(flink_cli run -d "$JOB_JAR" run --bootstrap-servers "$BOOTSTRAP" --input-topic "$INPUT_TOPIC" \
    --output-topic "$OUTPUT_TOPIC" --dlq-topic "$DLQ_TOPIC" --group-id "$GROUP_ID" \
    --checkpoint-dir "file://$WORK/flink/checkpoints" "$@" 2>&1)" || { echo "$out" >&2; die "submission failed"; }
  id="$(echo "$out" | grep -oE 'JobID [0-9a-f]{32}' | awk '{print $2}' | tail -n1)"
  [ -n "$id" ] || { echo "$out" >&2; die "no JobID in the client's output"; }
  echo "$id"
}

job_state() { curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/jobs/$1" | jq -r .state; }

cancel() {
  [ -n "${1:-}" ] || die "usage: stack.sh cancel JOBID"
  curl -fsS --max-time 5 -X PATCH "http://127.0.0.1:$FLINK_REST_PORT/jobs/$1?mode=cancel" >/dev/null
  log "cancel requested for $1"
}

# ---------------------------------------------------------------- commands
cmd_up() {
  local t0; t0=$(date +%s)
  fetch
  # Kafka and Flink do not depend on each other: start them side by side
  local kpid
  ( kafka_up && topics_up ) & kpid=$!
  flink_up
  wait "$kpid" || die "kafka did not come up"
  log "up in $(( $(date +%s) - t0 )) s; Web UI http://127.0.0.1:$FLINK_REST_PORT, Kafka $BOOTSTRAP"
}

cmd_down() {
  stop taskmanager
  stop jobmanager
  stop kafka
  log "down"
}

cmd_status() {
  local name rc=0
  for name in kafka jobmanager taskmanager; do
    if alive "$name"; then echo "$name: running (pid $(pid_of "$name"))"; else echo "$name: stopped"; rc=1; fi
  done
  if port_open "$KAFKA_PORT"; then echo "kafka: $BOOTSTRAP reachable"; fi
  if flink_overview >/dev/null 2>&1; then
    echo "flink: $(flink_overview | jq -c '{taskmanagers, "slots-total", "slots-available", "jobs-running"}')"
    curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/jobs/overview" \
      | jq -r '.jobs[] | "job: \(.jid) \(.state) \(.name)"' || true
    echo "web ui: http://127.0.0.1:$FLINK_REST_PORT"
  fi
  return "$rc"
}

cmd_topics() {
  kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe \
    | grep -E '^Topic:' | grep -v '__' || true
  local t
  for t in "$INPUT_TOPIC" "$OUTPUT_TOPIC" "$DLQ_TOPIC"; do
    echo "end offsets $t: $(kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" \
      --topic "$t" --time -1 | tr '\n' ' ')"
  done
}

cmd_logs() {
  case "${1:-}" in
    kafka) tail -n 100 "$LOGS/kafka.log" ;;
    jobmanager|taskmanager) tail -n 100 "$LOGS/$1.log" ;;
    "") ls -l "$LOGS"; echo "(stack.sh logs kafka|jobmanager|taskmanager)" ;;
    *) die "unknown log '$1': accepted kafka, jobmanager, taskmanager" ;;
  esac
}

cmd_env() {
  cat <<EOF
WORK=$WORK
BOOTSTRAP=$BOOTSTRAP
INPUT_TOPIC=$INPUT_TOPIC
OUTPUT_TOPIC=$OUTPUT_TOPIC
DLQ_TOPIC=$DLQ_TOPIC
FLINK_REST=http://127.0.0.1:$FLINK_REST_PORT
PROM_JM=http://127.0.0.1:$PROM_JM_PORT/metrics
PROM_TM=http://127.0.0.1:$PROM_TM_PORT/metrics
EOF
}

# Sourced by demo.sh / e2e.sh for the functions; run as a command otherwise.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    topics) cmd_topics ;;
    submit) shift; submit "$@" ;;
    cancel) shift; cancel "$@" ;;
    logs) shift; cmd_logs "$@" ;;
    env) cmd_env ;;
    kafka-cp) kafka_cp ;;
    flink-cp) flink_cp ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ] && die "unknown command '$1'"; exit 2 ;;
  esac
fi
