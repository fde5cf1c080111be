#!/usr/bin/env bash
# A real local stack on loopback, from Maven jars: KRaft Kafka 4.2.0 brokers (combined
# broker+controller) and a Flink 2.2.1 standalone session cluster (JobManager and TaskManagers as
# separate JVMs, Web UI, RocksDB, Prometheus reporter), optionally ZooKeeper 3.8 and a standby
# JobManager for high availability. Everything it writes (jars, data, logs, pid files) is under
# $URLDEDUP_STACK_DIR (default deploy/local/.work, gitignored); ports and topic names can be
# overridden by the environment variables below (e2e.sh runs a second stack that way).
#
#   stack.sh up [--taskmanagers N] [--brokers B] [--ha]
#                      fetch jars (first time), start what is not running, create the topics.
#                      Default: 1 broker, 1 JobManager, 1 TaskManager with 2 slots.
#                      --taskmanagers N: N TaskManagers with one slot each (keyBy crosses processes)
#                      --brokers B: B brokers, all controllers too (B voters; 1..5); with 3 or more,
#                        topics have replication factor 3 and min.insync.replicas=2
#                      --ha: a ZooKeeper server, Flink high-availability.type zookeeper and a
#                        standby JobManager (REST/Web UI on FLINK_REST_PORT+1)
#                      The shape is kept in $URLDEDUP_STACK_DIR/shape: later commands (and an up
#                      without flags) use it. Env: STACK_TASKMANAGERS, STACK_BROKERS, STACK_HA=1,
#                      STACK_SLOTS (slots per TaskManager, 1..16; default 2, 1 with --taskmanagers;
#                      the cluster's default parallelism is all slots).
#   stack.sh down      stop the processes this script started (pid files), nothing else
#   stack.sh status    every process of the shape, brokers, Flink /overview, jobs
#   stack.sh topics    list topics with partition counts and end offsets
#   stack.sh submit [ARGS...]   submit the job jar detached (Kafka/topic flags filled in; ARGS appended)
#   stack.sh cancel JOBID
#   stack.sh logs [kafka|kafka2..|jobmanager|jobmanager2|taskmanager|taskmanager2..|zookeeper]
#   stack.sh env       print the ports and topics as shell assignments
#   stack.sh kafka-cp | flink-cp   print a classpath (for the console tools)
#
# Sourced by a script (for its functions), stack.sh also offers: stack_teardown NAME and
# stack_failure_hint NAME for its exit handlers (script-lib.sh's on_exit), and one hook: a function
# stack_kafka_extra_config NAME defined by that script prints properties that kafka_config appends
# to broker NAME's server.properties (a key given again there wins: Kafka reads the file with
# java.util.Properties, the last occurrence counts; the file is then readable by its owner only).
#
# Ports of the larger shapes: broker i on KAFKA_PORT+2(i-1) (controller CONTROLLER_PORT+2(i-1)),
# TaskManager i's Prometheus endpoint on PROM_TM_PORT+i-1, the standby JobManager's on
# PROM_JM_PORT-1, ZooKeeper on ZK_PORT (default FLINK_RPC_PORT-2); with --ha the JobManagers' RPC,
# and with --taskmanagers the TaskManagers' RPC and the blob server, take free ports.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# shellcheck source=../script-lib.sh
source "$REPO/deploy/script-lib.sh"
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
ZK_PORT="${ZK_PORT:-$(( FLINK_RPC_PORT - 2 ))}"
# the single-TaskManager shape's RPC port range (TM_RPC_PORT..+40) and blob server range
# (BLOB_PORT..+10); the larger shapes take free ports
TM_RPC_PORT="${TM_RPC_PORT:-16200}"
BLOB_PORT="${BLOB_PORT:-16130}"
# extra JVM flags of the TaskManagers (e.g. a JFR recording: kafka-bench.sh --jfr)
TM_JAVA_OPTS="${TM_JAVA_OPTS:-}"

# ---------------------------------------------------------------- shape
# The environment wins over the shape file an earlier `up` wrote; `up`'s flags win over both.
SHAPE_FILE="$WORK/shape"
if [ -f "$SHAPE_FILE" ]; then
  while IFS='=' read -r k v; do
    case "$k" in
      STACK_TASKMANAGERS|STACK_BROKERS|STACK_HA|STACK_SLOTS) [ -n "${!k+x}" ] || printf -v "$k" '%s' "$v" ;;
    esac
  done <"$SHAPE_FILE"
fi
# STACK_TASKMANAGERS empty: the default single TaskManager with two slots
STACK_TASKMANAGERS="${STACK_TASKMANAGERS:-}"
STACK_BROKERS="${STACK_BROKERS:-1}"
STACK_HA="${STACK_HA:-0}"
# STACK_SLOTS empty: 2 slots per TaskManager, 1 with --taskmanagers
STACK_SLOTS="${STACK_SLOTS:-}"

# shape_derive: the process names, ports and bootstrap list of the current shape.
shape_derive() {
  local i
  TM_COUNT="${STACK_TASKMANAGERS:-1}"
  if [ -n "$STACK_SLOTS" ]; then TM_SLOTS="$STACK_SLOTS"
  elif [ -n "$STACK_TASKMANAGERS" ]; then TM_SLOTS=1; else TM_SLOTS=2; fi
  BROKERS=(kafka)
  for (( i = 2; i <= STACK_BROKERS; i++ )); do BROKERS+=("kafka$i"); done
  TASKMANAGERS=(taskmanager)
  for (( i = 2; i <= TM_COUNT; i++ )); do TASKMANAGERS+=("taskmanager$i"); done
  JOBMANAGERS=(jobmanager)
  [ "$STACK_HA" = 1 ] && JOBMANAGERS+=(jobmanager2)
  BOOTSTRAP=""
  for (( i = 1; i <= STACK_BROKERS; i++ )); do
    BOOTSTRAP="${BOOTSTRAP:+$BOOTSTRAP,}127.0.0.1:$(( KAFKA_PORT + 2 * (i - 1) ))"
  done
  # replication of the topics and of Kafka's internal topics
  REPLICATION=$(( STACK_BROKERS < 3 ? STACK_BROKERS : 3 ))
  MIN_ISR=$(( REPLICATION >= 3 ? 2 : 1 ))
}

shape_check() {
  [[ "$STACK_TASKMANAGERS" =~ ^([1-9]|1[0-6])?$ ]] \
    || { echo "stack: error: --taskmanagers: accepted 1..16, got '$STACK_TASKMANAGERS'" >&2; exit 2; }
  [[ "$STACK_BROKERS" =~ ^[1-5]$ ]] \
    || { echo "stack: error: --brokers: accepted 1..5, got '$STACK_BROKERS'" >&2; exit 2; }
  [[ "$STACK_HA" =~ ^[01]$ ]] || { echo "stack: error: STACK_HA: accepted 0 or 1, got '$STACK_HA'" >&2; exit 2; }
  [[ "$STACK_SLOTS" =~ ^([1-9]|1[0-6])?$ ]] \
    || { echo "stack: error: STACK_SLOTS: accepted 1..16, got '$STACK_SLOTS'" >&2; exit 2; }
}
shape_check
shape_derive

# node numbers and ports of a process name (kafka = broker 1, taskmanager3 = TaskManager 3)
node_of() { local n="${1##*[!0-9]}"; echo "${n:-1}"; }
broker_port() { echo $(( KAFKA_PORT + 2 * ($(node_of "$1") - 1) )); }
controller_port() { echo $(( CONTROLLER_PORT + 2 * ($(node_of "$1") - 1) )); }
tm_prom_port() { echo $(( PROM_TM_PORT + $(node_of "$1") - 1 )); }
jm_rest_port() { echo $(( FLINK_REST_PORT + $(node_of "$1") - 1 )); }
jm_prom_port() { echo $(( PROM_JM_PORT - $(node_of "$1") + 1 )); }

JAVA="${JAVA:-java}"
# Flink's Java 17 opens (flink-dist config.yaml env.java.opts.all), from their one source
FLINK_OPENS="$("$REPO/deploy/java-opens.sh")"

log() { echo "stack: $*" >&2; }
die() { echo "stack: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- jars
fetch() {
  local profile
  local profiles=(kafka flink)
  [ "$STACK_HA" = 1 ] && profiles+=(zookeeper)
  for profile in "${profiles[@]}"; do
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
zookeeper_cp() { echo "$LIB/zookeeper/*"; }

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
  local pid=$! i
  echo "$pid" >"$PIDS/$name.pid"
  # Until the child has exec'd, /proc/PID/cmdline is this shell's, and alive() would call a process
  # that is still starting dead (CI saw "kafka exited during start-up" with no kafka.out yet).
  for i in $(seq 1 100); do
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-Durldedup.stack=$name" && return 0
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
}

# stop NAME...: SIGTERM to each, then wait for all together (brokers of one quorum must go down
# side by side: the last one left waits for a controller majority that is gone), SIGKILL after 30 s.
stop() {
  local name pid i left=()
  for name in "$@"; do
    if ! alive "$name"; then rm -f "$PIDS/$name.pid"; continue; fi
    pid="$(pid_of "$name")"
    log "stopping $name (pid $pid)"
    kill "$pid" 2>/dev/null || true
    left+=("$name:$pid")
  done
  for i in $(seq 1 60); do
    local still=()
    for name in "${left[@]}"; do
      if kill -0 "${name#*:}" 2>/dev/null; then still+=("$name"); else rm -f "$PIDS/${name%%:*}.pid"; fi
    done
    left=("${still[@]}")
    [ "${#left[@]}" -eq 0 ] && return 0
    sleep 0.5
  done
  for name in "${left[@]}"; do
    log "${name%%:*} did not stop in 30 s: SIGKILL"
    kill -9 "${name#*:}" 2>/dev/null || true
    rm -f "$PIDS/${name%%:*}.pid"
  done
  sleep 0.5
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
# kafka_config [NAME]: the config of broker NAME (default kafka, broker 1) under $CONF/NAME.
kafka_config() {
  local name="${1:-kafka}" node voters="" i
  node="$(node_of "$name")"
  for (( i = 1; i <= STACK_BROKERS; i++ )); do
    voters="${voters:+$voters,}$i@127.0.0.1:$(( CONTROLLER_PORT + 2 * (i - 1) ))"
  done
  mkdir -p "$CONF/$name" "$WORK/$name-data" "$LOGS"
  cat >"$CONF/$name/server.properties" <<EOF
# KRaft: broker and controller in one JVM, static voters ($STACK_BROKERS)
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(broker_port "$name"),CONTROLLER://127.0.0.1:$(controller_port "$name")
advertised.listeners=PLAINTEXT://127.0.0.1:$(broker_port "$name")
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$WORK/$name-data
num.partitions=1
auto.create.topics.enable=false
default.replication.factor=$REPLICATION
min.insync.replicas=$MIN_ISR
offsets.topic.replication.factor=$REPLICATION
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=$REPLICATION
transaction.state.log.min.isr=$MIN_ISR
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=$REPLICATION
share.coordinator.state.topic.min.isr=$MIN_ISR
group.initial.rebalance.delay.ms=0
# a loaded machine: the voters may come up a minute apart (default 60 s)
initial.broker.registration.timeout.ms=180000
# the job's KafkaSink transactions must fit under this (DESIGN.md: the builder default is 1 h)
transaction.max.timeout.ms=900000
log.retention.hours=24
EOF
  # the sourcing script's own properties (security-check.sh: SASL listeners), see the header
  if declare -F stack_kafka_extra_config >/dev/null; then
    chmod 600 "$CONF/$name/server.properties"
    stack_kafka_extra_config "$name" >>"$CONF/$name/server.properties"
  fi
  cat >"$CONF/$name/log4j2.properties" <<EOF
appender.file.type = File
appender.file.name = file
appender.file.fileName = $LOGS/$name.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{1.} - %m%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
  mkdir -p "$CONF/kafka"
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

# kafka_up: start every broker of the shape that is not running, then wait until they serve. All
# are formatted first (side by side) and then started together: a broker that waits for a
# controller majority gives up after initial.broker.registration.timeout.ms.
kafka_up() {
  local name todo=() pids=() heap=512m i
  [ "$STACK_BROKERS" -gt 1 ] && heap=384m
  for name in "${BROKERS[@]}"; do
    if alive "$name"; then log "$name already running (pid $(pid_of "$name"))"; continue; fi
    port_open "$(broker_port "$name")" && die "port $(broker_port "$name") is taken by a process this script did not start"
    todo+=("$name")
  done
  [ "${#todo[@]}" -gt 0 ] || return 0
  # one cluster id for all brokers of the stack
  if [ ! -s "$WORK/kafka-cluster-id" ]; then
    mkdir -p "$WORK"
    "$JAVA" -cp "$(kafka_cp)" kafka.tools.StorageTool random-uuid 2>/dev/null >"$WORK/kafka-cluster-id"
  fi
  for name in "${todo[@]}"; do
    kafka_config "$name"
    if [ ! -f "$WORK/$name-data/meta.properties" ]; then
      kafka_tool kafka.tools.StorageTool format -t "$(cat "$WORK/kafka-cluster-id")" -c "$CONF/$name/server.properties" \
        >>"$LOGS/$name-format.log" 2>&1 &
      pids+=("$!")
    fi
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { cat "$LOGS"/kafka*-format.log >&2; die "kafka storage format failed"; }
  done
  for name in "${todo[@]}"; do
    log "starting $name on 127.0.0.1:$(broker_port "$name")"
    start "$name" "-Xms$heap" "-Xmx$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$CONF/$name/log4j2.properties" \
      -cp "$(kafka_cp)" kafka.Kafka "$CONF/$name/server.properties"
  done
  for name in "${todo[@]}"; do wait_for "$name" 180 port_open "$(broker_port "$name")"; done
  wait_for "${todo[0]}" 180 kafka_ready
}

# create_topic NAME PARTITIONS: replicated over the shape's brokers; retried while brokers are
# still registering (a replication factor above the registered brokers is refused).
create_topic() {
  local deadline=$(( $(date +%s) + 60 )) extra=()
  [ "$MIN_ISR" -gt 1 ] && extra=(--config "min.insync.replicas=$MIN_ISR")
  until kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
      --topic "$1" --partitions "$2" --replication-factor "$REPLICATION" "${extra[@]}" >/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 1
  done
}

topics_up() {
  # one JVM per topic (TopicCommand takes one): in parallel, they are idempotent (--if-not-exists)
  local p1 p2 p3
  create_topic "$INPUT_TOPIC" 4 & p1=$!
  create_topic "$OUTPUT_TOPIC" 4 & p2=$!
  create_topic "$DLQ_TOPIC" 1 & p3=$!
  wait "$p1" && wait "$p2" && wait "$p3" || die "creating topics failed"
  log "topics: $INPUT_TOPIC (4), $OUTPUT_TOPIC (4), $DLQ_TOPIC (1); replication $REPLICATION, min.insync.replicas $MIN_ISR"
}

# produce TOPIC < lines: one record per line, no key. The console producer's own defaults (request
# timeout 1.5 s, 3 retries) drop records on a loaded machine or while a broker is killed (measured:
# 547 of 10^6 lost in a broker kill); these retry for up to 10 minutes instead.
produce() {
  kafka_tool org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BOOTSTRAP" --topic "$1" \
    --command-property linger.ms=20 --command-property batch.size=262144 \
    --request-timeout-ms 30000 --message-send-max-retries 2147483647 \
    --command-property delivery.timeout.ms=600000
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
    (cd "$REPO" && mvn -B -ntp -q -pl samples -am compile) >"$LOGS/build-samples.log" 2>&1 \
      || { tail -n 40 "$LOGS/build-samples.log" >&2; die "samples build failed"; }
  fi
}

# read_topic TOPIC [--print-headers]: every committed record up to the topic's current end (no
# idle-timeout guessing, no consumer group), one a line: partition<TAB>key<TAB>value[<TAB>headers].
read_topic() {
  local topic="$1"; shift
  ensure_samples
  "$JAVA" -Xmx256m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
    -cp "$REPO/samples/target/classes:$REPO/state/target/classes:$(kafka_cp)" io.urldedup.samples.FrontierConsumer \
    --bootstrap-servers "$BOOTSTRAP" --topic "$topic" --print "$@" 2>/dev/null || true
}

# metric NAME: a urldedup metric summed over subtasks, from the TaskManagers' Prometheus endpoints
# (flink_taskmanager_job_task_operator_urldedup_NAME); "-" when not served (yet).
metric() {
  local tm
  for tm in "${TASKMANAGERS[@]}"; do
    curl -fsS --max-time 3 "http://127.0.0.1:$(tm_prom_port "$tm")/metrics" 2>/dev/null || true
  done \
    | awk -v n="flink_taskmanager_job_task_operator_urldedup_$1" \
      '$1 ~ "^"n"\\{" || $1 == n { s += $NF; found = 1 } END { if (found) printf "%d\n", s; else print "-" }'
}

# ---------------------------------------------------------------- ZooKeeper (--ha)
zookeeper_config() {
  mkdir -p "$CONF/zookeeper" "$WORK/zookeeper-data" "$LOGS"
  # standalone server (one is enough on one machine: the quorum being tested is Flink's leader
  # election, not ZooKeeper's); tickTime 1 s allows session timeouts from 2 s to 20 s
  cat >"$CONF/zookeeper/zoo.cfg" <<EOF
tickTime=1000
initLimit=10
syncLimit=5
dataDir=$WORK/zookeeper-data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
maxClientCnxns=100
admin.enableServer=false
4lw.commands.whitelist=srvr,mntr
autopurge.purgeInterval=1
EOF
  cat >"$CONF/zookeeper/logback.xml" <<EOF
<configuration>
  <appender name="file" class="ch.qos.logback.core.FileAppender">
    <file>$LOGS/zookeeper.log</file>
    <append>true</append>
    <encoder><pattern>%d{ISO8601} %-5p [%t] %c{1} - %m%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="file"/></root>
</configuration>
EOF
}

# serving: `srvr` names the mode (`ruok` answers imok even when the server thread died)
zk_ready() { (exec 3<>"/dev/tcp/127.0.0.1/$ZK_PORT" && printf srvr >&3 && timeout 2 cat <&3) 2>/dev/null | grep -q '^Mode: '; }

zookeeper_up() {
  [ "$STACK_HA" = 1 ] || return 0
  if alive zookeeper; then log "zookeeper already running (pid $(pid_of zookeeper))"; return 0; fi
  port_open "$ZK_PORT" && die "port $ZK_PORT is taken by a process this script did not start"
  zookeeper_config
  log "starting zookeeper on 127.0.0.1:$ZK_PORT"
  start zookeeper -Xms64m -Xmx128m -Dlogback.configurationFile="$CONF/zookeeper/logback.xml" \
    -Dzookeeper.admin.enableServer=false \
    -cp "$(zookeeper_cp)" org.apache.zookeeper.server.quorum.QuorumPeerMain "$CONF/zookeeper/zoo.cfg"
  wait_for zookeeper 60 zk_ready
}

# ---------------------------------------------------------------- Flink
flink_config() {
  mkdir -p "$CONF/flink" "$WORK/flink/tmp" "$WORK/flink/upload" "$WORK/flink/checkpoints" \
    "$WORK/flink/savepoints" "$WORK/flink/rocksdb"
  local tm_memory=2g
  [ -n "$STACK_TASKMANAGERS" ] && tm_memory=1536m
  cat >"$CONF/flink/config.yaml" <<EOF
# Flink 2.x config.yaml (standard YAML). Loopback only, small memory, $TM_SLOTS slot(s) per TaskManager.
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
    port: $TM_RPC_PORT-$(( TM_RPC_PORT + 40 ))
  data:
    port: 0
  numberOfTaskSlots: $TM_SLOTS
  memory:
    process:
      size: $tm_memory
blob:
  server:
    port: $BLOB_PORT-$(( BLOB_PORT + 10 ))
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
  default: $(( TM_COUNT * TM_SLOTS ))
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
  if [ -n "$STACK_TASKMANAGERS" ] || [ "$STACK_HA" = 1 ]; then
    # several TaskManagers (and restarted JobManagers) take free ports: no fixed range to share
    # with other stacks, and a restarted process never reuses the address of the one killed
    # (Pekko keeps a quarantined association to it, see flink_up)
    sed -i -e '/^  rpc:$/{n;s/^    port: '"$TM_RPC_PORT-$(( TM_RPC_PORT + 40 ))"'$/    port: 0/}' \
      -e 's/^    port: '"$BLOB_PORT-$(( BLOB_PORT + 10 ))"'$/    port: 0/' \
      "$CONF/flink/config.yaml"
  fi
  if [ "$STACK_HA" = 1 ]; then
    cat >>"$CONF/flink/config.yaml" <<EOF
# JobManager high availability: leader election and the job/checkpoint pointers in ZooKeeper,
# the job graphs and checkpoint metadata they point to under storageDir
high-availability:
  type: zookeeper
  storageDir: file://$WORK/flink/ha
  cluster-id: /urldedup
  # high-availability.jobmanager.port replaces jobmanager.rpc.port: 0 = a free port per JobManager
  jobmanager:
    port: 0
  zookeeper:
    quorum: 127.0.0.1:$ZK_PORT
    path:
      root: /flink
    client:
      # a killed leader's ephemeral nodes vanish after this: the standby takes over then
      session-timeout: 10000
      connection-timeout: 5000
      # a lost connection (not an expired session) does not revoke leadership: fewer restarts
      # on a loaded machine
      tolerate-suspended-connections: true
# the server has no SASL: without this the client looks for a JAAS 'Client' section and fails
zookeeper:
  sasl:
    disable: true
EOF
  fi
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

# rest_port: the REST port of the first running JobManager (any of them serves the REST API: a
# standby forwards to the leader's Dispatcher), FLINK_REST_PORT if none runs.
rest_port() {
  local jm
  for jm in "${JOBMANAGERS[@]}"; do
    if alive "$jm" && port_open "$(jm_rest_port "$jm")"; then jm_rest_port "$jm"; return 0; fi
  done
  echo "$FLINK_REST_PORT"
}
flink_rest() { echo "http://127.0.0.1:$(rest_port)"; }
# jm_leader: the running JobManager whose Dispatcher holds the leadership (its log has the grant
# after the process's own start line), empty if none
jm_leader() {
  local jm
  for jm in "${JOBMANAGERS[@]}"; do
    alive "$jm" || continue
    awk '/Starting StandaloneSessionClusterEntrypoint\.$/ { g = 0 } /DefaultDispatcherRunner was granted leadership/ { g = 1 }
      /DefaultDispatcherRunner was revoked leadership/ { g = 0 } END { exit g ? 0 : 1 }' "$LOGS/$jm.log" 2>/dev/null \
      && { echo "$jm"; return 0; }
  done
  return 0
}
flink_overview() { curl -fsS --max-time 3 "$(flink_rest)/overview"; }
flink_overview_at() { curl -fsS --max-time 3 "http://127.0.0.1:$1/overview"; }
# registered NAME OFFSET: the TaskManager's log has, after byte OFFSET, its registration at the
# ResourceManager (the count in /overview still includes a killed TaskManager until its heartbeat
# times out)
registered() { tail -c "+$(( $2 + 1 ))" "$LOGS/$1.log" 2>/dev/null | grep -q 'Successful registration at resource manager'; }

# flink_up: start every JobManager and TaskManager of the shape that is not running; returns when
# each one started here serves (JobManager: REST; TaskManager: registered).
flink_up() {
  flink_config
  local params jvm dyn name started=() offsets=() i
  for name in "${JOBMANAGERS[@]}"; do
    if alive "$name"; then log "$name already running (pid $(pid_of "$name"))"; continue; fi
    port_open "$(jm_rest_port "$name")" && die "port $(jm_rest_port "$name") is taken by a process this script did not start"
    [ -n "${params:-}" ] || params="$(resource_params GET_JM_RESOURCE_PARAMS)"
    # first and last line without a pipe: `echo | head -n1` fails with SIGPIPE (141) under pipefail
    # when head exits before echo has written (seen: a scenario's stack start died of it)
    jvm="${params%%$'\n'*}"; dyn="${params##*$'\n'}"
    log "starting flink $name (REST/Web UI http://127.0.0.1:$(jm_rest_port "$name"))"
    # shellcheck disable=SC2086 # $jvm, $dyn and $FLINK_OPENS are word lists by design
    start "$name" $jvm $FLINK_OPENS -Dlog.file="$LOGS/$name.log" \
      -Dlog4j.configurationFile="file:$CONF/flink/log4j.properties" \
      -cp "$(flink_cp)" org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint \
      --configDir "$CONF/flink" -D "metrics.reporter.prom.port=$(jm_prom_port "$name")" \
      -D "rest.port=$(jm_rest_port "$name")" $dyn
    started+=("$name")
    # the first JobManager leads: start the standby once the leader serves
    [ "$name" = jobmanager ] && wait_for jobmanager 300 flink_overview_at "$(jm_rest_port jobmanager)"
  done
  for name in "${started[@]}"; do wait_for "$name" 300 flink_overview_at "$(jm_rest_port "$name")"; done
  params=""; started=()
  for name in "${TASKMANAGERS[@]}"; do
    if alive "$name"; then log "$name already running (pid $(pid_of "$name"))"; continue; fi
    [ -n "$params" ] || params="$(resource_params GET_TM_RESOURCE_PARAMS)"
    jvm="${params%%$'\n'*}"; dyn="${params##*$'\n'}"
    local rpc=()
    if [ -z "$STACK_TASKMANAGERS" ] && [ "$STACK_HA" != 1 ]; then
      # A restarted TaskManager starts its RPC port search one further each time: the JobManager's
      # Pekko remoting keeps the killed process's association to its host:port and drops what a new
      # process on the same port sends ("read-only association"); measured: a TaskManager restarted
      # on the port of the one killed never registered. (The larger shapes take free ports.)
      local starts=0
      [ -f "$WORK/flink/tm-starts" ] && starts="$(cat "$WORK/flink/tm-starts")"
      echo $(( starts + 1 )) >"$WORK/flink/tm-starts"
      rpc=(-D "taskmanager.rpc.port=$(( TM_RPC_PORT + starts % 20 ))-$(( TM_RPC_PORT + 40 ))")
    fi
    log "starting flink $name ($TM_SLOTS slot(s), Prometheus http://127.0.0.1:$(tm_prom_port "$name")/metrics)"
    offsets+=("$(stat -c %s "$LOGS/$name.log" 2>/dev/null || echo 0)")
    # shellcheck disable=SC2086
    start "$name" $jvm $FLINK_OPENS $TM_JAVA_OPTS -Dlog.file="$LOGS/$name.log" \
      -Dlog4j.configurationFile="file:$CONF/flink/log4j.properties" \
      -cp "$(flink_cp)" org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
      --configDir "$CONF/flink" -D "metrics.reporter.prom.port=$(tm_prom_port "$name")" \
      "${rpc[@]}" $dyn
    started+=("$name")
  done
  for i in "${!started[@]}"; do wait_for "${started[$i]}" 300 registered "${started[$i]}" "${offsets[$i]}"; done
  return 0
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

job_state() { curl -fsS --max-time 3 "$(flink_rest)/jobs/$1" | jq -r .state; }

cancel() {
  [ -n "${1:-}" ] || die "usage: stack.sh cancel JOBID"
  curl -fsS --max-time 5 -X PATCH "$(flink_rest)/jobs/$1?mode=cancel" >/dev/null
  log "cancel requested for $1"
}

# ---------------------------------------------------------------- exit handlers
# For a script that runs a stack of its own and stops it when it ends (script-lib.sh's on_exit):
#   on_exit 'stack_teardown NAME'   cancel the job $JOB_ID (when set and the cluster answers), then
#                                   stop this stack's processes (cmd_down: its pid files only), the
#                                   lines prefixed "NAME: "
#   stack_failure_hint NAME         where the logs are, and the last errors and warnings of the
#                                   TaskManager's log (for a handler that runs when the script failed)
stack_teardown() {
  if [ -n "${JOB_ID:-}" ] && flink_overview >/dev/null 2>&1; then cancel "$JOB_ID" 2>/dev/null || true; fi
  cmd_down 2>&1 | sed "s/^/$1: /" >&2 || true
}
stack_failure_hint() {
  echo "$1: logs in $LOGS; last TaskManager lines:" >&2
  tail -n 30 "$LOGS/taskmanager.log" 2>/dev/null | grep -E 'ERROR|Exception|WARN' >&2 || true
}

# ---------------------------------------------------------------- commands
# cmd_up [--taskmanagers N] [--brokers B] [--ha]
cmd_up() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --taskmanagers) STACK_TASKMANAGERS="${2:-}"; shift ;;
      --brokers) STACK_BROKERS="${2:-}"; shift ;;
      --ha) STACK_HA=1 ;;
      *) echo "stack: error: up: unknown flag '$1' (accepted: --taskmanagers N, --brokers B, --ha)" >&2; exit 2 ;;
    esac
    shift
  done
  shape_check
  shape_derive
  mkdir -p "$WORK"
  printf 'STACK_TASKMANAGERS=%s\nSTACK_BROKERS=%s\nSTACK_HA=%s\nSTACK_SLOTS=%s\n' \
    "$STACK_TASKMANAGERS" "$STACK_BROKERS" "$STACK_HA" "$STACK_SLOTS" >"$SHAPE_FILE"
  local t0; t0=$(date +%s)
  fetch
  # Kafka and Flink do not depend on each other: start them side by side
  local kpid
  ( kafka_up && topics_up ) & kpid=$!
  zookeeper_up
  flink_up
  wait "$kpid" || die "kafka did not come up"
  log "up in $(( $(date +%s) - t0 )) s: ${#BROKERS[@]} broker(s), ${#JOBMANAGERS[@]} JobManager(s), $TM_COUNT TaskManager(s) x $TM_SLOTS slot(s); Web UI http://127.0.0.1:$FLINK_REST_PORT, Kafka $BOOTSTRAP"
}

# every process this stack dir has a pid file for, whatever the shape: TaskManagers first, then
# JobManagers, brokers, ZooKeeper
stack_processes() {
  local kind f
  for kind in taskmanager jobmanager kafka zookeeper; do
    for f in "$PIDS/$kind".pid "$PIDS/$kind"[0-9]*.pid; do
      [ -f "$f" ] && basename "$f" .pid
    done
  done
  return 0
}

cmd_down() {
  local kind
  for kind in taskmanager jobmanager kafka zookeeper; do
    # shellcheck disable=SC2046 # one word per process name
    stop $(stack_processes | grep "^$kind")
  done
  log "down"
}

cmd_status() {
  local name rc=0 extra
  for name in zookeeper "${BROKERS[@]}" "${JOBMANAGERS[@]}" "${TASKMANAGERS[@]}"; do
    [ "$name" = zookeeper ] && [ "$STACK_HA" != 1 ] && continue
    case "$name" in
      kafka*) extra=" 127.0.0.1:$(broker_port "$name")" ;;
      jobmanager*) extra=" REST http://127.0.0.1:$(jm_rest_port "$name")" ;;
      taskmanager*) extra=" Prometheus http://127.0.0.1:$(tm_prom_port "$name")/metrics" ;;
      zookeeper) extra=" 127.0.0.1:$ZK_PORT" ;;
    esac
    [ "$STACK_HA" = 1 ] && [ "$name" = "$(jm_leader)" ] && extra="$extra (leader)"
    if alive "$name"; then echo "$name: running (pid $(pid_of "$name"))$extra"; else echo "$name: stopped"; rc=1; fi
  done
  if port_open "$KAFKA_PORT"; then echo "kafka: $BOOTSTRAP reachable"; fi
  if flink_overview >/dev/null 2>&1; then
    echo "flink: $(flink_overview | jq -c '{taskmanagers, "slots-total", "slots-available", "jobs-running"}')"
    curl -fsS --max-time 3 "$(flink_rest)/jobs/overview" \
      | jq -r '.jobs[] | "job: \(.jid) \(.state) \(.name)"' || true
    echo "web ui: $(flink_rest)"
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
    kafka|kafka[0-9]|jobmanager|jobmanager[0-9]|taskmanager|taskmanager[0-9]|taskmanager[0-9][0-9]|zookeeper)
      [ -f "$LOGS/$1.log" ] || die "no log $LOGS/$1.log"
      tail -n 100 "$LOGS/$1.log" ;;
    "") ls -l "$LOGS"; echo "(stack.sh logs kafka|kafkaN|jobmanager|jobmanager2|taskmanager|taskmanagerN|zookeeper)" ;;
    *) die "unknown log '$1': accepted kafka, kafkaN, jobmanager, jobmanager2, taskmanager, taskmanagerN, zookeeper" ;;
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
  local tm
  echo "STACK_TASKMANAGERS=$STACK_TASKMANAGERS"
  echo "STACK_BROKERS=$STACK_BROKERS"
  echo "STACK_HA=$STACK_HA"
  echo "STACK_SLOTS=$STACK_SLOTS"
  echo "PROM_TMS=\"$(for tm in "${TASKMANAGERS[@]}"; do printf 'http://127.0.0.1:%s/metrics ' "$(tm_prom_port "$tm")"; done | sed 's/ $//')\""
  [ "$STACK_HA" = 1 ] && echo "ZOOKEEPER=127.0.0.1:$ZK_PORT" && echo "FLINK_REST_STANDBY=http://127.0.0.1:$(jm_rest_port jobmanager2)"
  return 0
}

# Sourced by demo.sh / e2e.sh for the functions; run as a command otherwise.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    up) shift; cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    topics) cmd_topics ;;
    submit) shift; submit "$@" ;;
    cancel) shift; cancel "$@" ;;
    logs) shift; cmd_logs "$@" ;;
    env) cmd_env ;;
    kafka-cp) kafka_cp ;;
    flink-cp) flink_cp ;;
    *) header_usage "$0"; [ -n "${1:-}" ] && die "unknown command '$1'"; exit 2 ;;
  esac
fi
