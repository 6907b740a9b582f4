#!/usr/bin/env bash
# Shared by test.sh, with-postgres.sh, cluster.sh and bench.sh (source it):
# installs PostgreSQL and nginx from Debian's packages without starting
# their system services, and runs a PostgreSQL server of our own in a
# folder, on loopback only.
#   services_install            apt-get install postgresql nginx (idempotent)
#   pg_start DIR PORT           initdb DIR if new, start on 127.0.0.1:PORT
#   pg_stop DIR                 fast shutdown
#   pg_url PORT [DB]            the URL the relays and tests use
#   free_port                   a free loopback TCP port
# The server trusts every connection from 127.0.0.1 (no password): a
# development and test setup, never to be exposed.

services_say() { printf '\033[1;36m[services]\033[0m %s\n' "$*"; }

# The newest PostgreSQL server's bin folder (Debian keeps initdb and pg_ctl
# off PATH), or nothing.
pg_bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

nginx_bin() {
  command -v nginx 2>/dev/null || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; }
}

services_install() {
  local missing=()
  [[ -x "$(pg_bindir)/initdb" ]] || missing+=(postgresql)
  [[ -n "$(nginx_bin)" ]] || missing+=(nginx)
  if [[ ${#missing[@]} -eq 0 ]]; then
    services_say "PostgreSQL ($("$(pg_bindir)/postgres" --version)) and nginx ($("$(nginx_bin)" -v 2>&1)): present"
    return
  fi
  services_say "installing Debian ${missing[*]} (their system services are not started)"
  export DEBIAN_FRONTEND=noninteractive
  # invoke-rc.d asks policy-rc.d whether to start a service: say no for the
  # length of the install (unless the machine already has a policy).
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && own_policy=1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  [[ $own_policy -eq 1 ]] && rm -f "$policy"
  return 0
}

# Runs a command as the postgres user when we are root (PostgreSQL refuses
# to run as root).
as_postgres() {
  if [[ $EUID -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_start() {
  local dir=$1 port=$2 bin
  bin=$(pg_bindir)
  mkdir -p "$dir"
  [[ $EUID -eq 0 ]] && chown postgres: "$dir" && chmod 700 "$dir"
  if [[ ! -f "$dir/PG_VERSION" ]]; then
    as_postgres "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >"$dir.initdb.log" 2>&1 ||
      { cat "$dir.initdb.log"; return 1; }
    rm -f "$dir.initdb.log"
    cat >>"$dir/postgresql.conf" <<CONF
# netcode-playground: loopback only, no Unix socket.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
CONF
  fi
  as_postgres "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 -o "-p $port" start >/dev/null ||
    { tail -n 20 "$dir/server.log"; return 1; }
}

pg_stop() {
  local dir=$1
  [[ -f "$dir/postmaster.pid" ]] || return 0
  as_postgres "$(pg_bindir)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
}

pg_url() {
  echo "postgres://postgres@127.0.0.1:$1/${2:-postgres}"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
