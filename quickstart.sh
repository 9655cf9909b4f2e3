#!/usr/bin/env sh
# Trellara quickstart: builds what it needs with the Maven wrapper, then runs the whole pipeline on this machine
# (two PostgreSQL 17 servers, a Kafka broker, a Connect worker with both connectors), a demo workload and a
# verification. Needs only a JDK 17+. Arguments are passed through: ./quickstart.sh --help
set -eu
cd "$(dirname "$0")"

if ! command -v java >/dev/null 2>&1 && [ -z "${JAVA_HOME:-}" ]; then
  echo "quickstart: a JDK 17 or newer is needed (java not found; set JAVA_HOME or add java to PATH)" >&2
  exit 2
fi
JAVA="java"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; fi

CLASSPATH_FILE="quickstart/target/quickstart.classpath"
SKIP_BUILD="${QUICKSTART_SKIP_BUILD:-}"
for arg in "$@"; do
  case "$arg" in
    --help|-h) if [ -f "$CLASSPATH_FILE" ]; then SKIP_BUILD=1; fi ;;
  esac
done

if [ "$SKIP_BUILD" != "1" ]; then
  echo "building the connectors and the quickstart (./mvnw install -pl quickstart -am; first run downloads dependencies) ..."
  BUILD_LOG="$(mktemp "${TMPDIR:-/tmp}/trellara-quickstart-build.XXXXXX")"
  if ! ./mvnw -B -q -pl quickstart -am install -DskipTests >"$BUILD_LOG" 2>&1; then
    tail -n 60 "$BUILD_LOG" >&2
    echo "quickstart: the build failed (full log: $BUILD_LOG)" >&2
    exit 2
  fi
  rm -f "$BUILD_LOG"
fi

if [ ! -f "$CLASSPATH_FILE" ]; then
  echo "quickstart: $CLASSPATH_FILE is missing; run without QUICKSTART_SKIP_BUILD=1" >&2
  exit 2
fi

exec "$JAVA" ${QUICKSTART_JAVA_OPTS:--Xmx1g} -Dlog4j2.configurationFile=log4j2.xml \
  -cp "quickstart/target/classes:$(cat "$CLASSPATH_FILE")" io.trellara.quickstart.Quickstart "$@"
