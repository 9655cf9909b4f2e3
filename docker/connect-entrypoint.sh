#!/bin/sh
# Starts a distributed Connect worker: the image's defaults plus one line per CONNECT_* environment variable
# (CONNECT_BOOTSTRAP_SERVERS=broker:9092 -> bootstrap.servers=broker:9092; later lines win).
set -eu
config=/tmp/connect-distributed.properties
cp /opt/kafka/config/trellara-connect-distributed.properties "$config"
env | grep '^CONNECT_' | while IFS='=' read -r name value; do
    key=$(printf '%s' "${name#CONNECT_}" | tr '[:upper:]' '[:lower:]' | tr '_' '.')
    printf '%s=%s\n' "$key" "$value" >> "$config"
done || true
echo "Starting Kafka Connect with $config:"
grep -v -e '^#' -e '^$' -e 'password' "$config"
exec /opt/kafka/bin/connect-distributed.sh "$config"
